package agent_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
)

func TestNewStreamClientRefusesAnUnusableCAFile(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(notPEM, []byte("not a certificate"), 0o600))

	_, err := agent.NewStreamClient(agent.StreamClientOptions{CAFile: filepath.Join(dir, "missing.pem")})
	require.ErrorContains(t, err, "stream CA file")
	_, err = agent.NewStreamClient(agent.StreamClientOptions{CAFile: notPEM})
	require.ErrorContains(t, err, "no PEM certificates")

	c, err := agent.NewStreamClient(agent.StreamClientOptions{})
	require.NoError(t, err)
	require.Zero(t, c.Timeout, "an overall timeout would cut streams off")
}
