package cli

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"net/netip"
	"strings"

	"github.com/tetherdev/tether/console"
	"github.com/tetherdev/tether/internal/forwarded"
	"github.com/tetherdev/tether/internal/httpserve"
)

// serveConsole serves the web console until ctx ends (Ctrl-C). The
// operator token comes from the environment only, never from a flag,
// which would show it in the process list.
func serveConsole(_ Starter, args []string) (action, error) {
	fs := flag.NewFlagSet("console", flag.ContinueOnError)
	addr := fs.String("addr", console.DefaultAddr, "")
	temporalUI := fs.String("temporal-ui", "", "")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%w: console takes flags only: [--addr HOST:PORT] [--temporal-ui URL]", ErrUsage)
	}
	return func(ctx context.Context, e env) error { return runConsole(ctx, e, *addr, *temporalUI) }, nil
}

// runConsole serves the console on addr. An address in use (the console
// --dev serves beside the Web UI) is one sentence naming --addr.
func runConsole(ctx context.Context, e env, addr, temporalUI string) error {
	var token string
	if e.s.Env != nil {
		token = e.s.Env(console.EnvToken)
	}
	if err := console.CheckAddr(addr, token); err != nil {
		return err
	}
	tlsConfig, err := consoleTLS(e)
	if err != nil {
		return err
	}
	if err := console.CheckTLS(addr, tlsConfig != nil); err != nil {
		return err
	}
	proxies, err := trustedProxies(e)
	if err != nil {
		return err
	}
	srv, err := console.New(console.Options{
		Client: e.conn.c, DataConverter: e.conn.dc, Namespace: e.conn.namespace, TaskQueue: e.conn.taskQueue,
		StreamClient: e.conn.streams, NoSearchAttributes: e.conn.noAttrs, Token: token, LoginToRead: !console.Loopback(addr), TemporalUI: temporalUI,
		TLS: tlsConfig, Hosts: allowedHosts(e), TrustedProxies: proxies,
	})
	if err != nil {
		return err
	}
	ln, err := httpserve.Listen(addr, "the console", "--addr")
	if err != nil {
		return err
	}
	mode := "read-only (set " + console.EnvToken + " to act)"
	if token != "" {
		mode = "every page and action needs the operator token"
	}
	scheme := "http"
	if tlsConfig != nil {
		scheme = "https"
	}
	e.printf("Tether console on %s://%s/ (%s)\n", scheme, ln.Addr(), mode)
	return console.Serve(ctx, ln, srv)
}

// Where the console's TLS key pair comes from: serving beyond loopback
// needs one (console.Serve refuses plain HTTP there).
const (
	envConsoleTLSCert = "TETHER_CONSOLE_TLS_CERT"
	envConsoleTLSKey  = "TETHER_CONSOLE_TLS_KEY"
)

// consoleTLS loads the key pair the environment names, or none.
func consoleTLS(e env) (*tls.Config, error) {
	if e.s.Env == nil {
		return nil, nil
	}
	cert, key := e.s.Env(envConsoleTLSCert), e.s.Env(envConsoleTLSKey)
	switch {
	case cert == "" && key == "":
		return nil, nil
	case cert == "" || key == "":
		return nil, fmt.Errorf("%s and %s go together", envConsoleTLSCert, envConsoleTLSKey)
	}
	return console.LoadTLS(cert, key)
}

// allowedHosts are the names in TETHER_ALLOWED_HOSTS, as the worker's
// console reads them.
// trustedProxies are the reverse proxies TETHER_TRUSTED_PROXIES names.
func trustedProxies(e env) ([]netip.Prefix, error) {
	if e.s.Env == nil {
		return nil, nil
	}
	ps, err := forwarded.Parse(e.s.Env(forwarded.EnvTrustedProxies))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", forwarded.EnvTrustedProxies, err)
	}
	return ps, nil
}

func allowedHosts(e env) []string {
	if e.s.Env == nil {
		return nil
	}
	var out []string
	for _, h := range strings.Split(e.s.Env(console.EnvAllowedHosts), ",") {
		if h = strings.TrimSpace(h); h != "" {
			out = append(out, h)
		}
	}
	return out
}
