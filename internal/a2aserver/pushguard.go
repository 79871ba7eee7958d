package a2aserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
)

// A push config's bounds.
const (
	maxPushURL   = 2048
	maxPushToken = 1024
	maxPushID    = 128
	resolveWait  = 5 * time.Second
)

// blockedPrefixes are addresses beyond what netip's predicates name that a
// push must not reach unless allowed: "this network", carrier-grade NAT
// (shared address space), IETF protocol assignments, benchmarking, the
// IPv4 broadcast, NAT64 and the discard prefix.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("255.255.255.255/32"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("100::/64"),
}

// blocked says why a push must not reach ip by default ("" when it may):
// loopback, private, link-local (169.254.169.254, the cloud metadata
// service, is link-local), multicast, unspecified or a reserved range.
func blocked(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return "a loopback address"
	case ip.IsPrivate():
		return "a private address"
	case ip == netip.MustParseAddr("169.254.169.254"):
		return "the cloud metadata address"
	case ip.IsLinkLocalUnicast():
		return "a link-local address"
	case ip.IsUnspecified():
		return "the unspecified address"
	case ip.IsMulticast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast():
		return "a multicast address"
	}
	for _, p := range blockedPrefixes {
		if p.Contains(ip) {
			return "a reserved address (" + p.String() + ")"
		}
	}
	return ""
}

// pushGuard decides which addresses push notifications may reach: public
// ones, and those the allow-list names (host names, addresses, prefixes).
// Immutable once built; safe for concurrent use.
type pushGuard struct {
	hosts    map[string]bool
	prefixes []netip.Prefix
	resolver *net.Resolver
}

// newPushGuard parses allow entries: a host name, an IP address or a CIDR
// prefix each.
func newPushGuard(allow []string) (*pushGuard, error) {
	g := &pushGuard{hosts: map[string]bool{}, resolver: net.DefaultResolver}
	for _, e := range allow {
		e = strings.TrimSpace(e)
		switch {
		case e == "":
			continue
		case strings.Contains(e, "/"):
			p, err := netip.ParsePrefix(e)
			if err != nil {
				return nil, fmt.Errorf("push allow-list entry %q: not a CIDR prefix (%v)", e, err)
			}
			g.prefixes = append(g.prefixes, p.Masked())
		case strings.ContainsAny(e, ":@?#") && !isAddr(e):
			return nil, fmt.Errorf("push allow-list entry %q: want a host name, an IP address or a CIDR prefix, without scheme or port", e)
		default:
			if ip, err := netip.ParseAddr(strings.Trim(e, "[]")); err == nil {
				g.prefixes = append(g.prefixes, netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen()))
				continue
			}
			g.hosts[strings.ToLower(strings.TrimSuffix(e, "."))] = true
		}
	}
	return g, nil
}

// CheckPushAllow reports the first entry of a push allow-list
// (PushOptions.Allow) that is not a host name, an IP address or a CIDR
// prefix.
func CheckPushAllow(allow []string) error {
	_, err := newPushGuard(allow)
	return err
}

func isAddr(s string) bool {
	_, err := netip.ParseAddr(strings.Trim(s, "[]"))
	return err == nil
}

// allowedHost reports whether the allow-list names host itself.
func (g *pushGuard) allowedHost(host string) bool {
	return g.hosts[strings.ToLower(strings.TrimSuffix(host, "."))]
}

// allowedAddr says why ip may not be reached ("" when it may).
func (g *pushGuard) allowedAddr(ip netip.Addr) string {
	why := blocked(ip)
	if why == "" {
		return ""
	}
	for _, p := range g.prefixes {
		if p.Contains(ip.Unmap()) {
			return ""
		}
	}
	return why
}

func refusePush(format string, args ...any) error {
	return fmt.Errorf("%w: pushNotificationConfig: "+format, append([]any{a2a.ErrInvalidParams}, args...)...)
}

// check validates a push config as set: an http(s) URL without user
// information whose host resolves only to addresses the guard allows, an
// authentication this server can send, bounded sizes.
func (g *pushGuard) check(ctx context.Context, c *a2a.PushConfig) error {
	if c == nil {
		return refusePush("the config is required")
	}
	if len(c.ID) > maxPushID || strings.ContainsFunc(c.ID, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return refusePush("id: at most %d printable bytes", maxPushID)
	}
	if len(c.Token) > maxPushToken {
		return refusePush("token is %d bytes: at most %d", len(c.Token), maxPushToken)
	}
	if err := checkPushAuth(c.Auth); err != nil {
		return err
	}
	u, err := checkPushURL(c.URL)
	if err != nil {
		return err
	}
	host := u.Hostname()
	if g.allowedHost(host) {
		return nil
	}
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else {
		rctx, cancel := context.WithTimeout(ctx, resolveWait)
		defer cancel()
		if addrs, err = g.resolver.LookupNetIP(rctx, "ip", host); err != nil {
			return refusePush("url %s: its host %s does not resolve (%v)", c.URL, host, err)
		}
	}
	for _, ip := range addrs {
		if why := g.allowedAddr(ip); why != "" {
			return refusePush("url %s: %s is %s; this server pushes only to public addresses unless its push allow-list (starter a2a --push-allow, worker --a2a-push-allow) names the host", c.URL, ip, why)
		}
	}
	return nil
}

func checkPushURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, refusePush("url is required: where to POST the task on each change")
	}
	if len(raw) > maxPushURL {
		return nil, refusePush("url is %d bytes: at most %d", len(raw), maxPushURL)
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, refusePush("url %q: %v", raw, err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Hostname() == "":
		return nil, refusePush("url %q: want an absolute http:// or https:// URL", raw)
	case u.User != nil:
		return nil, refusePush("url: a URL with a user or password is refused; give credentials in authentication")
	}
	return u, nil
}

// pushSchemes are the authentication schemes a push can send, as
// Authorization's scheme word.
var pushSchemes = map[string]string{"bearer": "Bearer", "basic": "Basic"}

func checkPushAuth(a *a2a.PushAuthInfo) error {
	if a == nil {
		return nil
	}
	if len(a.Schemes) == 0 {
		return refusePush("authentication.schemes is empty: name Bearer or Basic")
	}
	if _, ok := pushScheme(a); !ok {
		return refusePush("authentication.schemes %q: this server sends Bearer or Basic", a.Schemes)
	}
	if a.Credentials == "" {
		return refusePush("authentication.credentials is empty: nothing to send with scheme %s", a.Schemes[0])
	}
	if len(a.Credentials) > maxPushToken || strings.ContainsAny(a.Credentials, "\r\n") {
		return refusePush("authentication.credentials: at most %d bytes on one line", maxPushToken)
	}
	return nil
}

// pushScheme is the first of a's schemes this server sends.
func pushScheme(a *a2a.PushAuthInfo) (string, bool) {
	for _, s := range a.Schemes {
		if w, ok := pushSchemes[strings.ToLower(strings.TrimSpace(s))]; ok {
			return w, true
		}
	}
	return "", false
}

// errPushAddr is a connection the guard refused at dial time: the host
// resolved to a public address when the config was set, and to another
// since (DNS rebinding).
var errPushAddr = errors.New("push address refused")

// clients are the HTTP clients a push is sent with: guarded, which checks
// every address it dials, for any URL; open for a host the allow-list
// names. Neither follows redirects or uses a proxy (a proxy would dial for
// it, past the check).
func (g *pushGuard) clients(timeout time.Duration) (guarded, open *http.Client) {
	mk := func(control func(string, string, syscall.RawConn) error) *http.Client {
		d := &net.Dialer{Timeout: timeout, Control: control}
		return &http.Client{
			Timeout:       timeout,
			Transport:     &http.Transport{DialContext: d.DialContext, TLSHandshakeTimeout: timeout, ResponseHeaderTimeout: timeout, MaxIdleConnsPerHost: 2, IdleConnTimeout: time.Minute},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	return mk(g.control), mk(nil)
}

func (g *pushGuard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", errPushAddr, address)
	}
	if why := g.allowedAddr(ap.Addr()); why != "" {
		return fmt.Errorf("%w: %s is %s", errPushAddr, ap.Addr(), why)
	}
	return nil
}
