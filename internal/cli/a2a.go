package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/internal/a2aserver"
	"github.com/tetherdev/tether/internal/httpguard"
	"github.com/tetherdev/tether/internal/httpserve"
	"github.com/tetherdev/tether/signals"
)

// serveA2A serves the configured Temporal server's agents over the
// Agent2Agent protocol until ctx ends (Ctrl-C): the profiles of a file
// (--profiles), or one from the flags. The bearer token comes from the
// environment only, never from a flag, which would show it in the process
// list. Beyond loopback it needs the token and TLS.
func serveA2A(_ Starter, args []string) (action, error) {
	fs := flag.NewFlagSet("a2a", flag.ContinueOnError)
	var c a2aServe
	fs.StringVar(&c.addr, "addr", a2aserver.DefaultAddr, "")
	fs.StringVar(&c.url, "url", "", "")
	fs.StringVar(&c.cert, "tls-cert", "", "")
	fs.StringVar(&c.key, "tls-key", "", "")
	pushAllow := fs.String("push-allow", "", "")
	profiles := fs.String("profiles", "", "")
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
		return nil, fmt.Errorf("%w: a2a takes flags only: [--addr HOST:PORT] [--url URL] [--tls-cert F --tls-key F] [--profiles FILE | --name N] [--description D] [--tools a,b] [--approve a,b] [--system T] [--provider P] [--model M] [--push-allow HOST,IP,CIDR]", ErrUsage)
	}
	c.pushAllow = strings.Split(*pushAllow, ",")
	if err := a2aserver.CheckPushAllow(c.pushAllow); err != nil {
		return nil, fmt.Errorf("%w: a2a --push-allow: %v", ErrUsage, err)
	}
	if (c.cert == "") != (c.key == "") {
		return nil, fmt.Errorf("%w: a2a --tls-cert and --tls-key go together", ErrUsage)
	}
	if !httpserve.Loopback(c.addr) && c.cert == "" {
		return nil, fmt.Errorf("%w: a2a --addr %s is beyond loopback: serve TLS (--tls-cert, --tls-key, or %s/%s) with %s set; plain HTTP would show the token on the network", ErrUsage, c.addr, envA2ATLSCert, envA2ATLSKey, a2aserver.EnvToken)
	}
	if *profiles != "" {
		var flagged []string
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "name", "description", "provider", "model", "system", "tools", "approve":
				flagged = append(flagged, "--"+f.Name)
			}
		})
		if len(flagged) > 0 {
			return nil, fmt.Errorf("%w: a2a --profiles FILE names every profile; %s belong in the file", ErrUsage, strings.Join(flagged, ", "))
		}
		ps, err := a2aserver.LoadProfiles(*profiles)
		if err != nil {
			return nil, fmt.Errorf("%w: a2a: %v", ErrUsage, err)
		}
		c.profiles = ps
		return c.run, nil
	}
	o.Tools = signals.ToolList(*toolList)
	if approved := signals.ToolList(*approve); len(approved) > 0 {
		o.Approval = &signals.ApprovalPolicy{Tools: approved}
	}
	if err := signals.ValidateOptions(o, nil, nil); err != nil {
		return nil, fmt.Errorf("%w: a2a: %v", ErrUsage, err)
	}
	c.profiles = []a2aserver.Profile{{Name: *name, Description: *description, Options: o}}
	return c.run, nil
}

// The A2A server's key pair when --tls-cert and --tls-key are not given.
const (
	envA2ATLSCert = "TETHER_A2A_TLS_CERT"
	envA2ATLSKey  = "TETHER_A2A_TLS_KEY"
)

// a2aServe is what `starter a2a` serves, and where.
type a2aServe struct {
	addr, url, cert, key string
	profiles             []a2aserver.Profile
	// pushAllow names what push notifications may reach beyond public
	// addresses (--push-allow).
	pushAllow []string
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

func (c a2aServe) run(ctx context.Context, e env) error {
	var token string
	if e.s.Env != nil {
		token = e.s.Env(a2aserver.EnvToken)
		if c.cert == "" && c.key == "" {
			c.cert, c.key = e.s.Env(envA2ATLSCert), e.s.Env(envA2ATLSKey)
		}
	}
	if !httpserve.Loopback(c.addr) && strings.TrimSpace(token) == "" {
		return fmt.Errorf("%w: a2a --addr %s is beyond loopback: set %s, which every call must then carry", ErrUsage, c.addr, a2aserver.EnvToken)
	}
	var tlsConfig *tls.Config
	if c.cert != "" {
		var err error
		if tlsConfig, err = a2aserver.LoadTLS(c.cert, c.key); err != nil {
			return fmt.Errorf("%w: a2a: %v", ErrUsage, err)
		}
	}
	ln, err := httpserve.Listen(c.addr, "the A2A server", "--addr")
	if err != nil {
		return err
	}
	base := c.url
	if base == "" {
		base = a2aserver.BaseURL(ln.Addr().String(), tlsConfig != nil)
	}
	h, err := a2aserver.New(a2aserver.Options{
		Agents: e.agents, Profiles: c.profiles, BaseURL: base, Token: token, Describe: builtinDescriptions(),
		Push: a2aserver.PushOptions{Allow: c.pushAllow},
	})
	if err != nil {
		ln.Close()
		return fmt.Errorf("%w: a2a: %v", ErrUsage, err)
	}
	defer h.Close()
	guarded, err := httpguard.Guard{Hosts: allowedHosts(e)}.Handler(h)
	if err != nil {
		ln.Close()
		return err
	}
	mode := "no token (set " + a2aserver.EnvToken + " to require one)"
	if token != "" {
		mode = "every call needs the bearer token in " + a2aserver.EnvToken
	}
	names := make([]string, len(c.profiles))
	for i, p := range c.profiles {
		names[i] = p.Name
	}
	e.printf("Tether A2A server on %s/ (card %s%s; profiles %s; %s)\n", base, base, "/.well-known/agent-card.json", strings.Join(names, ", "), mode)
	streams, stopStreams := context.WithCancel(context.Background())
	defer stopStreams()
	srv := &http.Server{Handler: guarded, ReadHeaderTimeout: httpserve.ReadHeaderTimeout, TLSConfig: tlsConfig,
		BaseContext: func(net.Listener) context.Context { return streams }}
	errc := make(chan error, 1)
	go func() {
		if tlsConfig != nil {
			errc <- srv.ServeTLS(ln, "", "")
			return
		}
		errc <- srv.Serve(ln)
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	stopStreams() // open streams end, so the shutdown does not wait on them
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
