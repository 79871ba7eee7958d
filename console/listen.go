package console

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/tetherdev/tether/internal/httpguard"
)

// Loopback reports whether addr (host:port) names only this machine.
func Loopback(addr string) bool { return httpguard.Loopback(addr) }

// CheckAddr refuses to serve beyond loopback without an operator token:
// every conversation would be readable by anyone who reaches the port.
func CheckAddr(addr, token string) error {
	if !Loopback(addr) && token == "" {
		return fmt.Errorf("console on %s: serving beyond loopback needs %s (and then every page needs a login)", addr, EnvToken)
	}
	return nil
}

// CheckTLS refuses to serve beyond loopback in plain HTTP: the token at
// login and the session cookie after it would cross the network in clear.
// Serve behind a proxy that terminates TLS on loopback, or give the console
// a key pair.
func CheckTLS(addr string, tls bool) error {
	if !Loopback(addr) && !tls {
		return fmt.Errorf("console on %s: serving beyond loopback needs TLS (a certificate and key), or a proxy that terminates TLS in front of a console on loopback", addr)
	}
	return nil
}

// LoadTLS loads a PEM certificate (chain) and its key for Options.TLS.
func LoadTLS(certFile, keyFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("console TLS key pair (%s, %s): %w", certFile, keyFile, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// Guarded is s's handler behind the Host and Origin checks every Tether
// endpoint has (hosts: more names it is reached by), as Serve serves it.
func Guarded(s *Server, hosts []string) http.Handler {
	h, _ := httpguard.Guard{Hosts: hosts}.Handler(s.Handler()) // no origins: cannot fail
	return h
}

// readHeaderTimeout bounds a slow client's request headers; responses have
// no write timeout, since event streams stay open.
const readHeaderTimeout = 10 * time.Second

// Serve serves s on ln until ctx ends, then closes the console's feeds and
// shuts the server down: over TLS with Options.TLS, behind the Host and
// Origin checks (loopback names, IP addresses and Options.Hosts), never in plain HTTP
// beyond loopback.
func Serve(ctx context.Context, ln net.Listener, s *Server) error {
	if err := CheckTLS(ln.Addr().String(), s.o.TLS != nil); err != nil {
		s.Close()
		return err
	}
	srv := &http.Server{Handler: Guarded(s, s.o.Hosts), ReadHeaderTimeout: readHeaderTimeout, TLSConfig: s.o.TLS}
	errc := make(chan error, 1)
	go func() {
		if srv.TLSConfig != nil {
			errc <- srv.ServeTLS(ln, "", "")
			return
		}
		errc <- srv.Serve(ln)
	}()
	select {
	case err := <-errc:
		s.Close()
		return err
	case <-ctx.Done():
	}
	return Shutdown(srv, s)
}

// Shutdown ends the console's event streams, then the server.
func Shutdown(srv *http.Server, s *Server) error {
	s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
