package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"time"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/internal/a2aserver"
	"github.com/tetherdev/tether/internal/httpguard"
	"github.com/tetherdev/tether/internal/httpserve"
	"github.com/tetherdev/tether/signals"
)

// serveA2A serves the configured Temporal server's agents over the
// Agent2Agent protocol until ctx ends (Ctrl-C): one profile, the agent a
// new context starts, from the flags. The bearer token comes from the
// environment only, never from a flag, which would show it in the process
// list.
func serveA2A(_ Starter, args []string) (action, error) {
	fs := flag.NewFlagSet("a2a", flag.ContinueOnError)
	addr := fs.String("addr", a2aserver.DefaultAddr, "")
	name := fs.String("name", "tether", "")
	description := fs.String("description", "", "")
	var o signals.AgentOptions
	fs.StringVar(&o.Provider, "provider", "", "")
	fs.StringVar(&o.Model, "model", "", "")
	fs.StringVar(&o.SystemPrompt, "system", "", "")
	toolList := fs.String("tools", "current_time,calculate", "")
	approve := fs.String("approve", "", "")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%w: a2a takes flags only: [--addr HOST:PORT] [--name N] [--description D] [--tools a,b] [--approve a,b] [--system T] [--provider P] [--model M]", ErrUsage)
	}
	if !httpserve.Loopback(*addr) {
		return nil, fmt.Errorf("%w: a2a --addr %s: the A2A server serves loopback only for now (plain HTTP would show the token on the network); put a TLS proxy in front of 127.0.0.1", ErrUsage, *addr)
	}
	o.Tools = signals.ToolList(*toolList)
	if approved := signals.ToolList(*approve); len(approved) > 0 {
		o.Approval = &signals.ApprovalPolicy{Tools: approved}
	}
	if err := signals.ValidateOptions(o, nil, nil); err != nil {
		return nil, fmt.Errorf("%w: a2a: %v", ErrUsage, err)
	}
	p := a2aserver.Profile{Name: *name, Description: *description, Options: o}
	return func(ctx context.Context, e env) error { return runA2A(ctx, e, *addr, p) }, nil
}

// builtinDescriptions describes the tools every worker has, for the card's
// skills; a tool of the worker's own gets its name.
func builtinDescriptions() func(string) string {
	reg, err := tools.NewRegistry(append([]tools.Tool{tools.Calculator(), tools.CurrentTime(time.Now)}, tools.LoopTools()...)...)
	if err != nil {
		return nil
	}
	return func(name string) string {
		if t, ok := reg.Lookup(name); ok {
			return t.Description
		}
		return ""
	}
}

func runA2A(ctx context.Context, e env, addr string, p a2aserver.Profile) error {
	var token string
	if e.s.Env != nil {
		token = e.s.Env(a2aserver.EnvToken)
	}
	ln, err := httpserve.Listen(addr, "the A2A server", "--addr")
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	h, err := a2aserver.New(a2aserver.Options{
		Agents: e.agents, Profiles: []a2aserver.Profile{p}, BaseURL: base, Token: token, Describe: builtinDescriptions(),
	})
	if err != nil {
		ln.Close()
		return err
	}
	guarded, err := httpguard.Guard{Hosts: allowedHosts(e)}.Handler(h)
	if err != nil {
		ln.Close()
		return err
	}
	mode := "no token (set " + a2aserver.EnvToken + " to require one)"
	if token != "" {
		mode = "every call needs the bearer token in " + a2aserver.EnvToken
	}
	e.printf("Tether A2A server on %s/ (card %s%s; %s)\n", base, base, "/.well-known/agent-card.json", mode)
	srv := &http.Server{Handler: guarded, ReadHeaderTimeout: httpserve.ReadHeaderTimeout}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
