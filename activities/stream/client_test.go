package stream_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/stream"
)

func TestNewClientRefusesAnUnusableCAFile(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(notPEM, []byte("not a certificate"), 0o600))

	_, err := stream.NewClient(stream.ClientOptions{CAFile: filepath.Join(dir, "missing.pem")})
	require.ErrorContains(t, err, "stream CA file")
	_, err = stream.NewClient(stream.ClientOptions{CAFile: notPEM})
	require.ErrorContains(t, err, "no PEM certificates")

	c, err := stream.NewClient(stream.ClientOptions{})
	require.NoError(t, err)
	require.Zero(t, c.Timeout, "an overall timeout would cut streams off")
}
