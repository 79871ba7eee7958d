package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"

	"github.com/tetherdev/tether/console"
)

// serveConsole serves the web console until ctx ends (Ctrl-C). The
// operator token comes from the environment only, never from a flag,
// which would show it in the process list.
func serveConsole(ctx context.Context, e env, args []string) error {
	fs := flag.NewFlagSet("console", flag.ContinueOnError)
	addr := fs.String("addr", console.DefaultAddr, "")
	temporalUI := fs.String("temporal-ui", "", "")
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return fmt.Errorf("%w: console takes flags only: [--addr HOST:PORT] [--temporal-ui URL]", ErrUsage)
	}
	var token string
	if e.s.Env != nil {
		token = e.s.Env(console.EnvToken)
	}
	if err := console.CheckAddr(*addr, token); err != nil {
		return err
	}
	srv, err := console.New(console.Options{
		Client: e.conn.c, DataConverter: e.conn.dc, Namespace: e.conn.namespace, TaskQueue: e.conn.taskQueue,
		StreamClient: e.conn.streams, NoSearchAttributes: e.conn.noAttrs, Token: token, LoginToRead: !console.Loopback(*addr), TemporalUI: *temporalUI,
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("console: %w", err)
	}
	mode := "read-only (set " + console.EnvToken + " to act)"
	if token != "" {
		mode = "actions need the operator token"
	}
	e.printf("Tether console on http://%s/ (%s)\n", ln.Addr(), mode)
	return console.Serve(ctx, ln, srv)
}
