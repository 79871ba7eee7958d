package configfx

import (
	"io"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/internal/forwarded"
)

func TestDevServesTheConsoleBesideTheWebUI(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"dev", []string{"--dev"}, DefaultConsoleAddr},
		{"dev without a UI", []string{"--dev", "--ui-port", "0"}, ""},
		{"dev with a UI on a free port", []string{"--dev", "--ui-port", "-1"}, "127.0.0.1:0"},
		{"dev, console turned off", []string{"--dev", "--console-addr", ""}, ""},
		{"dev, console elsewhere", []string{"--dev", "--ui-port", "0", "--console-addr", "127.0.0.1:9000"}, "127.0.0.1:9000"},
		{"a cluster worker", nil, ""},
		{"the demo", []string{"--demo"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(tc.args, func(k string) string {
				if k == EnvConsoleToken {
					return "operator-token"
				}
				return ""
			}, io.Discard)
			require.NoError(t, err)
			require.Equal(t, tc.want, c.Console.Addr)
			require.Equal(t, "operator-token", c.Console.Token)
		})
	}
	_, err := Load([]string{"--console-addr", "127.0.0.1:9000"}, func(string) string { return "" }, io.Discard)
	require.ErrorContains(t, err, "--console-addr needs --dev")
}

func TestTheConsoleTrustsOnlyTheProxiesTheEnvironmentNames(t *testing.T) {
	c, err := load(t, []string{"--dev"}, nil)
	require.NoError(t, err)
	require.Empty(t, c.Console.TrustedProxies, "no forwarding header is believed by default")

	c, err = load(t, []string{"--dev"}, map[string]string{forwarded.EnvTrustedProxies: "127.0.0.1, 10.0.0.0/8"})
	require.NoError(t, err)
	require.Equal(t, []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8")}, c.Console.TrustedProxies)

	_, err = load(t, []string{"--dev"}, map[string]string{forwarded.EnvTrustedProxies: "my-proxy"})
	require.EqualError(t, err, forwarded.EnvTrustedProxies+`: trusted proxy "my-proxy": want an IP address or a CIDR prefix`)
}
