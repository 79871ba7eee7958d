package configfx

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTheA2AServerIsOptInUnderDevWithTheConsolesTokenUnlessItsOwn(t *testing.T) {
	c, err := Load([]string{"--dev"}, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	require.Empty(t, c.A2A.Addr, "--dev serves no A2A server unless asked")

	env := map[string]string{EnvConsoleToken: "console-operator-token"}
	c, err = Load([]string{"--dev", "--a2a-addr", "127.0.0.1:0"}, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	require.Equal(t, "console-operator-token", c.A2A.Token, "the console's token serves when A2A has none of its own")
	env[EnvA2AToken] = "a2a-own-token"
	c, err = Load([]string{"--dev", "--a2a-addr", "127.0.0.1:0"}, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	require.Equal(t, "a2a-own-token", c.A2A.Token)
}

func TestA2ABeyondLoopbackNeedsATokenAndTLSAndAReachableURL(t *testing.T) {
	for name, c := range map[string]struct {
		args []string
		env  map[string]string
		want string
	}{
		"without --dev":       {[]string{"--a2a-addr", "127.0.0.1:0"}, nil, "--a2a-addr needs --dev"},
		"no token":            {[]string{"--dev", "--a2a-addr", "0.0.0.0:8290", "--a2a-url", "https://agents.example", "--a2a-tls-cert", "c", "--a2a-tls-key", "k"}, nil, "beyond loopback: set " + EnvA2AToken},
		"plain HTTP":          {[]string{"--dev", "--a2a-addr", "0.0.0.0:8290", "--a2a-url", "https://agents.example"}, map[string]string{EnvA2AToken: "t"}, "set --a2a-tls-cert and --a2a-tls-key"},
		"half a key pair":     {[]string{"--dev", "--a2a-addr", "127.0.0.1:0", "--a2a-tls-cert", "c"}, nil, "go together"},
		"whitespace token":    {[]string{"--dev", "--a2a-addr", "127.0.0.1:0"}, map[string]string{EnvA2AToken: "  "}, "only whitespace"},
		"unspecified host":    {[]string{"--dev", "--a2a-addr", "0.0.0.0:8290", "--a2a-tls-cert", "c", "--a2a-tls-key", "k"}, map[string]string{EnvA2AToken: "t"}, "set --a2a-url"},
		"http URL under TLS":  {[]string{"--dev", "--a2a-addr", "127.0.0.1:0", "--a2a-tls-cert", "c", "--a2a-tls-key", "k", "--a2a-url", "http://x"}, nil, "want an https:// URL"},
		"mutual TLS no token": {[]string{"--dev", "--mutual-tls", "--ui-port", "0", "--console-addr", "", "--a2a-addr", "127.0.0.1:0"}, nil, "--mutual-tls serves A2A only behind a token"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Load(c.args, func(k string) string { return c.env[k] }, io.Discard)
			require.ErrorContains(t, err, c.want)
		})
	}
	_, err := Load([]string{"--dev", "--a2a-addr", "0.0.0.0:8290", "--a2a-tls-cert", "c", "--a2a-tls-key", "k", "--a2a-url", "https://agents.example"},
		func(k string) string { return map[string]string{EnvA2AToken: "t"}[k] }, io.Discard)
	require.NoError(t, err, "beyond loopback with a token, TLS and a URL")
}

func TestRemoteA2AAgentsComeFromTheConfigFileTheFlagOrVariableNames(t *testing.T) {
	path := writeFile(t, `{"agents":{"helper":{"url":"http://127.0.0.1:8290/","token_env":"HELPER_TOKEN"}}}`)
	for name, args := range map[string][]string{"flag": {"--a2a-config", path}, "variable": nil} {
		t.Run(name, func(t *testing.T) {
			vars := map[string]string{"HELPER_TOKEN": "t"}
			if args == nil {
				vars[EnvA2AConfig] = path
			}
			cfg, err := Load(args, func(k string) string { return vars[k] }, io.Discard)
			require.NoError(t, err)
			require.Equal(t, []string{"helper"}, cfg.A2ATools.Names())
			require.Equal(t, "t", cfg.A2ATools.Agents["helper"].Token)
		})
	}
	missing := filepath.Join(t.TempDir(), "none.json")
	_, err := Load([]string{"--a2a-config", missing}, func(string) string { return "" }, io.Discard)
	require.ErrorContains(t, err, "--a2a-config "+missing+": open "+missing+": no such file or directory")
	_, err = Load([]string{"--a2a-config", path}, func(string) string { return "" }, io.Discard)
	require.ErrorContains(t, err, `--a2a-config `+path+`: agent "helper": token_env takes the token from HELPER_TOKEN, which is not set`)
}
