package cli

import (
	"bytes"
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

// runStarter runs the starter with the SDK's real dialer.
func runStarter(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = Starter{Out: &out, Err: &errOut, Dial: client.DialContext}.Run(context.Background(), args)
	return code, out.String(), errOut.String()
}

func closedAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

func TestStarterWithoutTemporalServerSaysHowToGetOne(t *testing.T) {
	addr := closedAddress(t)
	code, out, errOut := runStarter("--address", addr, "status", "a1")
	require.Equal(t, 2, code)
	require.Empty(t, out)
	require.Equal(t, "starter: no Temporal server at "+addr+" (connection refused): "+
		"start one (go run ./cmd/worker --dev), or pass --address\n", errOut)
}

func TestStarterVerboseAddsTheWholeError(t *testing.T) {
	addr := closedAddress(t)
	code, _, errOut := runStarter("-v", "--address", addr, "status", "a1")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "failed reaching server")
	require.Contains(t, errOut, "\nstarter: no Temporal server at "+addr)
}

func TestStarterUsageErrorsAreOneLineWithStatusTwo(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string
	}{
		"unknown command": {[]string{"frobnicate", "a1"}, `starter: unknown command "frobnicate" (run starter without arguments for usage)`},
		"unknown flag":    {[]string{"--nope", "status"}, "starter: flag provided but not defined: -nope (run starter without arguments for usage)"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runStarter(tc.args...)
			require.Equal(t, 2, code)
			require.Empty(t, out)
			require.Equal(t, tc.want+"\n", errOut)
		})
	}
}

func TestStarterPrintsUsageWithoutACommandOrForHelp(t *testing.T) {
	code, out, errOut := runStarter()
	require.Equal(t, 2, code)
	require.Empty(t, out)
	require.Equal(t, Usage, errOut)

	for _, help := range []string{"help", "-h", "--help"} {
		code, out, errOut = runStarter(help)
		require.Equal(t, 0, code, help)
		require.Equal(t, Usage, out, help)
		require.Empty(t, errOut, help)
	}
}

func TestStarterWithUnusableCodecKeysSaysWhichVariablesToCheck(t *testing.T) {
	var out, errOut bytes.Buffer
	env := map[string]string{"TETHER_CODEC_KEYS": "k1:not-base64"}
	code := Starter{Out: &out, Err: &errOut, Dial: client.DialContext, Env: func(k string) string { return env[k] }}.
		Run(context.Background(), []string{"--address", closedAddress(t), "ls"})
	require.Equal(t, 2, code)
	require.Empty(t, out.String())
	require.Regexp(t, `^starter: cannot use the codec keys \(.+\): check TETHER_CODEC_KEYS, TETHER_CODEC_KEY_FILE and TETHER_CODEC_KEY_ID\n$`, errOut.String())
}
