package configfx

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMutualTLSNeedsDevAndALoginForTheWebUIAndConsole(t *testing.T) {
	noEnv := func(string) string { return "" }
	token := func(k string) string { return map[string]string{EnvConsoleToken: "an-operator-token"}[k] }
	blank := func(k string) string { return map[string]string{EnvConsoleToken: "   "}[k] }
	for name, tc := range map[string]struct {
		args []string
		env  func(string) string
		want string
	}{
		"without --dev":                   {[]string{"--mutual-tls", "--ui-port", "0"}, token, "--mutual-tls needs --dev"},
		"with the demo":                   {[]string{"--demo", "--mutual-tls", "--ui-port", "0"}, token, "--mutual-tls needs --dev"},
		"the Web UI without a token":      {[]string{"--dev", "--mutual-tls"}, noEnv, "--mutual-tls serves the Web UI and the console only behind a login: set " + EnvConsoleToken},
		"a blank token":                   {[]string{"--dev", "--mutual-tls"}, blank, "--mutual-tls serves the Web UI and the console only behind a login"},
		"the console alone, no token":     {[]string{"--dev", "--mutual-tls", "--ui-port", "0", "--console-addr", "127.0.0.1:0"}, noEnv, "only behind a login"},
		"the Web UI on a free port, bare": {[]string{"--dev", "--mutual-tls", "--ui-port", "-1"}, noEnv, "only behind a login"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Load(tc.args, tc.env, io.Discard)
			require.ErrorContains(t, err, tc.want)
		})
	}
	for name, tc := range map[string]struct {
		args []string
		env  func(string) string
	}{
		"no UI, no console":                   {[]string{"--dev", "--mutual-tls", "--ui-port", "0"}, noEnv},
		"the UI and console behind the token": {[]string{"--dev", "--mutual-tls"}, token},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := Load(tc.args, tc.env, io.Discard)
			require.NoError(t, err)
			require.True(t, c.MutualTLS)
		})
	}
}
