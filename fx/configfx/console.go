package configfx

import (
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"strings"

	"github.com/tetherdev/tether/internal/forwarded"
)

// Console defaults.
const (
	// DefaultConsoleAddr is where --dev serves the web console.
	DefaultConsoleAddr = "127.0.0.1:8280"
	// EnvConsoleToken holds the console's operator token.
	EnvConsoleToken = "TETHER_CONSOLE_TOKEN"
	// EnvConsoleTLSCert and EnvConsoleTLSKey name the console's PEM key
	// pair when the flags do not.
	EnvConsoleTLSCert = "TETHER_CONSOLE_TLS_CERT"
	EnvConsoleTLSKey  = "TETHER_CONSOLE_TLS_KEY"
	// EnvAllowedHosts lists, comma-separated, more names the worker's HTTP
	// endpoints are reached by (a proxy's or a DNS name); requests naming
	// any other host are refused.
	EnvAllowedHosts = "TETHER_ALLOWED_HOSTS"
)

// ConsoleConfig configures the web console --dev serves beside the Web UI.
type ConsoleConfig struct {
	// Addr is where it listens; empty serves none. With --dev and the Web
	// UI it defaults to DefaultConsoleAddr.
	Addr string
	// Token is the operator token (TETHER_CONSOLE_TOKEN); empty keeps the
	// console read-only. Set, every page needs a login.
	Token string
	// TLSCert and TLSKey are PEM files: both set serves HTTPS. Beyond
	// loopback the console refuses plain HTTP.
	TLSCert, TLSKey string
	// Hosts are more names the console is reached by (TETHER_ALLOWED_HOSTS).
	Hosts []string
	// TrustedProxies are the reverse proxies in front of the console
	// (TETHER_TRUSTED_PROXIES): their X-Forwarded-For and -Proto are
	// believed (console.Options.TrustedProxies).
	TrustedProxies []netip.Prefix
}

func consoleFlags(fs *flag.FlagSet, env func(string) string, c *ConsoleConfig) {
	fs.StringVar(&c.Addr, "console-addr", DefaultConsoleAddr, "address of the web console --dev serves beside the Web UI (empty: none; "+EnvConsoleToken+" enables actions)")
	fs.StringVar(&c.TLSCert, "console-tls-cert", env(EnvConsoleTLSCert), "PEM certificate (chain) to serve the console over HTTPS; needs --console-tls-key (required beyond loopback)")
	fs.StringVar(&c.TLSKey, "console-tls-key", env(EnvConsoleTLSKey), "PEM private key of --console-tls-cert")
}

// resolveConsole serves the console beside the Web UI: with --dev and a UI,
// unless --console-addr says otherwise (a free port when the UI takes
// one).
func (c *Config) resolveConsole(fs *flag.FlagSet, env func(string) string) error {
	c.Console.Token = env(EnvConsoleToken)
	c.Console.Hosts = splitList(env(EnvAllowedHosts))
	proxies, err := forwarded.Parse(env(forwarded.EnvTrustedProxies))
	if err != nil {
		return fmt.Errorf("%s: %w", forwarded.EnvTrustedProxies, err)
	}
	c.Console.TrustedProxies = proxies
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "console-addr" })
	switch {
	case set:
	case !c.Dev || c.UIPort == 0:
		c.Console.Addr = ""
	case c.UIPort < 0:
		c.Console.Addr = "127.0.0.1:0"
	}
	return nil
}

func (c Config) validateConsole() []error {
	var errs []error
	if c.Console.Addr != "" && !c.Dev {
		errs = append(errs, errors.New("--console-addr needs --dev; against a cluster, run `starter console`"))
	}
	if c.Console.Token != "" && strings.TrimSpace(c.Console.Token) == "" {
		errs = append(errs, errors.New(EnvConsoleToken+" is only whitespace: set a real token, or unset it for a read-only console"))
	}
	if (c.Console.TLSCert == "") != (c.Console.TLSKey == "") {
		errs = append(errs, errors.New("--console-tls-cert and --console-tls-key go together"))
	}
	return errs
}
