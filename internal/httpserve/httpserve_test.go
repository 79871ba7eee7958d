package httpserve

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/fx/fxtest"

	"github.com/tetherdev/tether/internal/startup"
)

func TestAPortInUseSaysWhichFlagMovesIt(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	addr := taken.Addr().String()
	_, err = Listen(addr, "the console", "--console-addr")
	var se *startup.Error
	require.ErrorAs(t, err, &se)
	require.Equal(t, "cannot serve the console on "+addr+" (listen tcp "+addr+": bind: address already in use): "+
		"choose another address with --console-addr (127.0.0.1:0 picks a free port)", startup.Explain(err))
}

func TestAnEndpointServesFromStartToStop(t *testing.T) {
	ln, err := Listen("127.0.0.1:0", "the test server", "--test-addr")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String()
	lc := fxtest.NewLifecycle(t)
	started, stopped := false, false
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })}
	Run(lc, slog.New(slog.DiscardHandler), Endpoint{Name: "Test server", Server: srv, Listener: ln,
		Started: func() { started = true },
		Stop: func(ctx context.Context) error {
			stopped = true
			return srv.Shutdown(ctx)
		}})
	require.False(t, started, "nothing runs before the app starts")

	lc.RequireStart()
	require.True(t, started)
	res, err := http.Get(url)
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, "ok", string(body))

	lc.RequireStop()
	require.True(t, stopped)
	_, err = http.Get(url)
	require.Error(t, err, "nothing serves after the stop")
}
