package configfx

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestABlankConsoleTokenOrHalfATLSPairIsRefused(t *testing.T) {
	cases := map[string]struct {
		args []string
		env  map[string]string
		want string
	}{
		"sixteen spaces": {[]string{"--dev"}, map[string]string{EnvConsoleToken: "                "}, EnvConsoleToken + " is only whitespace"},
		"tabs":           {[]string{"--dev"}, map[string]string{EnvConsoleToken: "\t\t\n"}, EnvConsoleToken + " is only whitespace"},
		"cert only":      {[]string{"--dev", "--console-tls-cert", "c.pem"}, nil, "--console-tls-cert and --console-tls-key go together"},
		"key only":       {[]string{"--dev"}, map[string]string{EnvConsoleTLSKey: "k.pem"}, "go together"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := load(t, tc.args, tc.env)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestConsoleTLSAndAllowedHostsComeFromTheEnvironment(t *testing.T) {
	cfg, err := load(t, []string{"--dev"}, map[string]string{EnvConsoleTLSCert: "c.pem", EnvConsoleTLSKey: "k.pem",
		EnvAllowedHosts: "tether.example.com, ops.example.com"})
	require.NoError(t, err)
	require.Equal(t, "c.pem", cfg.Console.TLSCert)
	require.Equal(t, "k.pem", cfg.Console.TLSKey)
	require.Equal(t, []string{"tether.example.com", "ops.example.com"}, cfg.Console.Hosts)
	require.Equal(t, cfg.Console.Hosts, cfg.Codec.Hosts)
}
