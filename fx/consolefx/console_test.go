package consolefx

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/internal/startup"
)

func TestBeyondLoopbackTheConsoleNeedsATokenAndTLS(t *testing.T) {
	for name, tc := range map[string]struct {
		env  map[string]string
		want string
	}{
		"no token":  {nil, "set " + configfx.EnvConsoleToken},
		"plain":     {map[string]string{configfx.EnvConsoleToken: "an-operator-token-of-some-length"}, "set --console-tls-cert and --console-tls-key"},
		"bad files": {map[string]string{configfx.EnvConsoleToken: "an-operator-token-of-some-length", configfx.EnvConsoleTLSCert: "/nonexistent/c.pem", configfx.EnvConsoleTLSKey: "/nonexistent/k.pem"}, "cannot load the console's TLS key pair"},
	} {
		t.Run(name, func(t *testing.T) {
			cfg, err := configfx.Load([]string{"--dev", "--console-addr", "0.0.0.0:0"}, func(k string) string { return tc.env[k] }, io.Discard)
			require.NoError(t, err)
			_, err = New(Params{Config: cfg.Console, Queue: cfg.Queue()})
			var se *startup.Error
			require.ErrorAs(t, err, &se)
			require.Contains(t, startup.Explain(err), tc.want)
		})
	}
}
