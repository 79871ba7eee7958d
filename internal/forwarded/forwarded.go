package forwarded

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// EnvTrustedProxies lists, comma-separated, the addresses or CIDR prefixes
// of the reverse proxies in front of the console, as the worker and the
// command line read it.
const EnvTrustedProxies = "TETHER_TRUSTED_PROXIES"

// ipv6ClientBits is how much of an IPv6 address names one client: a /64 is
// what one host or site is handed, so one address each would let a single
// client guess 2^64 times as often.
const ipv6ClientBits = 64

// Parse parses EnvTrustedProxies' form: IP addresses and CIDR prefixes
// separated by commas. Empty trusts none.
func Parse(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if p, err := netip.ParsePrefix(item); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(item)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q: want an IP address or a CIDR prefix", item)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// Proxies are the trusted reverse proxies; their forwarding headers are
// believed, no one else's.
type Proxies []netip.Prefix

func (ps Proxies) trusted(a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// peer is the address r's connection comes from.
func peer(r *http.Request) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	return a.Unmap(), err == nil
}

// client is r's client: the connection's peer or, when the peer is a
// trusted proxy, the nearest address in X-Forwarded-For that is not one
// (the proxies append; what a client wrote itself comes before).
func (ps Proxies) client(r *http.Request) (netip.Addr, bool) {
	a, ok := peer(r)
	if !ok || !ps.trusted(a) {
		return a, ok
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return a, true // a hop a proxy would not write: the last one believed
		}
		if a = hop.Unmap(); !ps.trusted(a) {
			return a, true
		}
	}
	return a, true
}

// TLS reports whether a trusted proxy says r reached it over TLS: the
// X-Forwarded-Proto the nearest proxy wrote.
func (ps Proxies) TLS(r *http.Request) bool {
	a, ok := peer(r)
	if !ok || !ps.trusted(a) {
		return false
	}
	v := r.Header.Values("X-Forwarded-Proto")
	if len(v) == 0 {
		return false
	}
	last := v[len(v)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	return strings.EqualFold(strings.TrimSpace(last), "https")
}

// ClientKey is what a rate limit counts r under: its client's IPv4
// address, or its IPv6 address's /64.
func (ps Proxies) ClientKey(r *http.Request) string {
	a, ok := ps.client(r)
	switch {
	case !ok:
		return r.RemoteAddr
	case a.Is6():
		return netip.PrefixFrom(a, ipv6ClientBits).Masked().String()
	}
	return a.String()
}
