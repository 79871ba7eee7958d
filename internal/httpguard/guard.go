// Package httpguard is the Host and Origin check every HTTP endpoint of
// Tether serves behind (package httpserve serves with it). It depends on
// nothing but the standard library, so the console, which must not depend
// on fx, uses it too.
package httpguard

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Guard is what every endpoint checks before its handler runs.
//
// The Host a request names must be an IP address (a browser that sends one
// loaded its page from that address, so no other site is speaking), a
// loopback name (localhost, *.localhost) or one of Hosts: a web page whose
// own name an attacker pointed at this machine (DNS rebinding) is answered
// 421 and learns nothing.
//
// A state-changing request (any method but GET, HEAD, OPTIONS) that a
// browser sends from another origin is refused 403, unless its origin is one
// of Origins (the embedded Web UI calling the codec server).
type Guard struct {
	// Hosts are more names the endpoint is served as (a reverse proxy's
	// public name), host or host:port; the port is not compared.
	Hosts []string
	// Origins are browser origins (scheme://host[:port]) trusted to send
	// state-changing requests.
	Origins []string
}

// Handler wraps next with g's checks. It fails only on a malformed origin.
func (g Guard) Handler(next http.Handler) (http.Handler, error) {
	hosts := map[string]bool{}
	for _, h := range g.Hosts {
		hosts[hostOnly(h)] = true
	}
	trusted := map[string]bool{}
	cop := http.NewCrossOriginProtection()
	for _, o := range g.Origins {
		o = strings.TrimSuffix(o, "/")
		if err := cop.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("trusted origin %q: %w", o, err)
		}
		trusted[o] = true
	}
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
	}))
	checked := cop.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !AllowedHost(r.Host, hosts) {
			http.Error(w, "this server is not served under the name "+quoteHost(r.Host), http.StatusMisdirectedRequest)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !trusted[o] && !allowedOrigin(o, hosts) {
			http.Error(w, "requests from pages of "+quoteHost(o)+" are refused", http.StatusForbidden)
			return
		}
		checked.ServeHTTP(w, r)
	}), nil
}

// AllowedHost reports whether host (a request's Host) names an IP address,
// a loopback name or one of names (keys are lower-case hosts without port).
func AllowedHost(host string, names map[string]bool) bool {
	h := hostOnly(host)
	switch {
	case h == "":
		return false
	case net.ParseIP(h) != nil:
		return true
	case h == "localhost" || strings.HasSuffix(h, ".localhost"):
		return true
	}
	return names[h]
}

// allowedOrigin reports whether a page of origin may talk to this server
// at all: its host passes the same check as a Host, so a rebound page's
// requests (whose Origin keeps the attacker's name) are refused even where
// reading is allowed. "null" (a sandboxed or file page) is refused.
func allowedOrigin(origin string, names map[string]bool) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return AllowedHost(u.Host, names)
}

// hostOnly is host without its port and brackets, lower-cased.
func hostOnly(host string) string {
	host = strings.ToLower(strings.TrimSpace(host))
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
}

// quoteHost quotes a client-sent name for an error body, bounded.
func quoteHost(h string) string {
	if len(h) > 100 {
		h = h[:100]
	}
	return fmt.Sprintf("%q", h)
}

// Loopback reports whether addr (host:port) names only this machine.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
