package httpserve

import "github.com/tetherdev/tether/internal/httpguard"

// Guard is the check Run serves every endpoint behind (httpguard.Guard).
type Guard = httpguard.Guard

// AllowedHost reports whether host is one an endpoint answers
// (httpguard.AllowedHost).
func AllowedHost(host string, names map[string]bool) bool { return httpguard.AllowedHost(host, names) }

// Loopback reports whether addr is a loopback address (httpguard.Loopback).
func Loopback(addr string) bool { return httpguard.Loopback(addr) }
