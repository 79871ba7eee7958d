package configfx

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMutualTLSNeedsDevAndNoWebUI(t *testing.T) {
	noEnv := func(string) string { return "" }
	for name, args := range map[string][]string{
		"without --dev":   {"--mutual-tls"},
		"with the Web UI": {"--dev", "--mutual-tls"},
		"with the demo":   {"--demo", "--mutual-tls", "--ui-port", "0"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Load(args, noEnv, io.Discard)
			require.ErrorContains(t, err, "--mutual-tls needs --dev and --ui-port 0 (the Web UI presents no client certificate)")
		})
	}
	c, err := Load([]string{"--dev", "--mutual-tls", "--ui-port", "0"}, noEnv, io.Discard)
	require.NoError(t, err)
	require.True(t, c.MutualTLS)
}
