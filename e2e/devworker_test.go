package e2e

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/fx/codecfx"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/tetherfx"
	"github.com/tetherdev/tether/fx/toolfx"
	"github.com/tetherdev/tether/internal/devserver"
)

// devWorker is `worker --dev` run in this process: the real fx app over a
// file-backed (SQLite) embedded server, with the parts of its graph a test
// reads.
type devWorker struct {
	app   *fx.App
	c     client.Client
	dc    converter.DataConverter
	srv   *devserver.Server
	codec codecfx.Endpoint // zero without a codec server
}

// startDevWorker runs the worker for args and env, with extra tools
// contributed as an embedding application would. It is stopped when the
// test ends unless stopped before.
func startDevWorker(t *testing.T, args []string, env map[string]string, extra ...tools.Tool) *devWorker {
	t.Helper()
	cfg, err := configfx.Load(args, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	w := &devWorker{}
	opts := []fx.Option{tetherfx.Worker(cfg, io.Discard), fx.NopLogger, fx.Populate(&w.c, &w.dc, &w.srv)}
	for _, tool := range extra {
		opts = append(opts, fx.Supply(fx.Annotate(tool, fx.ResultTags(`group:"`+toolfx.Group+`"`))))
	}
	if cfg.Codec.Addr != "" {
		opts = append(opts, fx.Populate(&w.codec))
	}
	w.app = fx.New(opts...)
	require.NoError(t, w.app.Err())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, w.app.Start(ctx))
	t.Cleanup(func() { w.stop(t) })
	return w
}

// stop stops the app and with it the server; later calls do nothing.
func (w *devWorker) stop(t *testing.T) {
	t.Helper()
	if w.app == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, w.app.Stop(ctx))
	w.app = nil
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
