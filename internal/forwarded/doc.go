// Package forwarded tells who sent a request to a server behind reverse
// proxies: the connection's peer, or, only when that peer is a trusted
// proxy, the client its X-Forwarded-For names and the scheme its
// X-Forwarded-Proto names. It never believes a forwarding header from
// anyone else, so a client cannot choose the address a rate limit counts
// it under, nor mark its own connection TLS. It uses the standard library
// only.
package forwarded
