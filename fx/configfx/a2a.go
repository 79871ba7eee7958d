package configfx

import (
	"errors"
	"flag"
	"net"
	"net/netip"
	"strings"

	"github.com/tetherdev/tether/internal/httpguard"
)

// A2A server defaults and variables.
const (
	// EnvA2AToken holds the bearer token every A2A call must carry; unset,
	// the console's operator token (EnvConsoleToken) serves.
	EnvA2AToken = "TETHER_A2A_TOKEN"
	// EnvA2ATLSCert and EnvA2ATLSKey name the A2A server's PEM key pair
	// when the flags do not.
	EnvA2ATLSCert = "TETHER_A2A_TLS_CERT"
	EnvA2ATLSKey  = "TETHER_A2A_TLS_KEY"
	// EnvA2AProfiles names the profiles file when --a2a-profiles does not.
	EnvA2AProfiles = "TETHER_A2A_PROFILES"
	// EnvA2APushAllow lists what push notifications may reach beyond
	// public addresses when --a2a-push-allow does not.
	EnvA2APushAllow = "TETHER_A2A_PUSH_ALLOW"
)

// A2AConfig configures the Agent2Agent server --dev serves beside the
// console (internal/a2aserver).
type A2AConfig struct {
	// Addr is where it listens; empty (the default) serves none.
	Addr string
	// Token is the bearer token (TETHER_A2A_TOKEN, else
	// TETHER_CONSOLE_TOKEN); empty needs none, on loopback only.
	Token string
	// TLSCert and TLSKey are PEM files: both set serves HTTPS and the
	// cards name an https URL. Beyond loopback plain HTTP is refused.
	TLSCert, TLSKey string
	// Profiles is a profiles file (a2aserver.LoadProfiles); empty serves
	// one profile, "tether", with current_time and calculate.
	Profiles string
	// URL is the base URL clients reach the server by, which the cards
	// name; empty: the listener's address, https with TLS.
	URL string
	// Hosts are more names the server is reached by (TETHER_ALLOWED_HOSTS).
	Hosts []string
	// PushAllow names what push notifications may reach beyond public
	// addresses: host names, IP addresses, CIDR prefixes
	// (a2aserver.PushOptions.Allow).
	PushAllow []string
}

func a2aFlags(fs *flag.FlagSet, env func(string) string, c *A2AConfig) {
	fs.StringVar(&c.Addr, "a2a-addr", "", "address of the Agent2Agent server --dev serves beside the console (empty: none; 127.0.0.1:8290 is starter a2a's)")
	fs.StringVar(&c.URL, "a2a-url", "", "the base URL clients reach the A2A server by, which its cards name (default: --a2a-addr's, https with TLS)")
	fs.StringVar(&c.Profiles, "a2a-profiles", env(EnvA2AProfiles), "JSON file of the agent profiles the A2A server offers, one card each (README: Agents over A2A)")
	fs.StringVar(&c.TLSCert, "a2a-tls-cert", env(EnvA2ATLSCert), "PEM certificate (chain) to serve A2A over HTTPS; needs --a2a-tls-key (required beyond loopback)")
	fs.StringVar(&c.TLSKey, "a2a-tls-key", env(EnvA2ATLSKey), "PEM private key of --a2a-tls-cert")
	c.PushAllow = splitList(env(EnvA2APushAllow))
	flagged := false
	fs.Func("a2a-push-allow", "hosts, IP addresses or CIDR prefixes, comma-separated, that A2A push notifications may reach though loopback, private or link-local (default: public addresses only)", func(s string) error {
		if !flagged {
			c.PushAllow, flagged = nil, true
		}
		c.PushAllow = append(c.PushAllow, splitList(s)...)
		return nil
	})
}

func (c *Config) resolveA2A(env func(string) string) {
	c.A2A.Token = env(EnvA2AToken)
	if c.A2A.Token == "" {
		c.A2A.Token = c.Console.Token
	}
	c.A2A.Hosts = splitList(env(EnvAllowedHosts))
}

func (c Config) validateA2A() []error {
	a := c.A2A
	if a.Addr == "" {
		return nil
	}
	var errs []error
	if !c.Dev {
		errs = append(errs, errors.New("--a2a-addr needs --dev; against a cluster, run `starter a2a`"))
	}
	if a.Token != "" && strings.TrimSpace(a.Token) == "" {
		errs = append(errs, errors.New(EnvA2AToken+" is only whitespace: set a real token"))
	}
	if (a.TLSCert == "") != (a.TLSKey == "") {
		errs = append(errs, errors.New("--a2a-tls-cert and --a2a-tls-key go together"))
	}
	if !httpguard.Loopback(a.Addr) {
		if a.Token == "" {
			errs = append(errs, errors.New("--a2a-addr "+a.Addr+" is beyond loopback: set "+EnvA2AToken+" (or "+EnvConsoleToken+"), which every call must then carry"))
		}
		if a.TLSCert == "" {
			errs = append(errs, errors.New("--a2a-addr "+a.Addr+" is beyond loopback: set --a2a-tls-cert and --a2a-tls-key (plain HTTP would show the token on the network)"))
		}
	}
	if a.URL != "" && !strings.HasPrefix(a.URL, "https://") && (a.TLSCert != "" || !strings.HasPrefix(a.URL, "http://")) {
		errs = append(errs, errors.New("--a2a-url "+a.URL+": want an https:// URL (http:// only without TLS)"))
	}
	if host, _, err := net.SplitHostPort(a.Addr); err == nil && a.URL == "" {
		if ip, err := netip.ParseAddr(host); host == "" || err == nil && ip.IsUnspecified() {
			errs = append(errs, errors.New("--a2a-addr "+a.Addr+" names no host clients can reach: set --a2a-url to the URL they use"))
		}
	}
	if c.MutualTLS && a.Token == "" {
		errs = append(errs, errors.New("--mutual-tls serves A2A only behind a token: set "+EnvA2AToken+" (or "+EnvConsoleToken+"), or leave out --a2a-addr"))
	}
	return errs
}
