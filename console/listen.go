package console

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/tetherdev/tether/internal/httpserve"
)

// Loopback reports whether addr (host:port) names only this machine.
func Loopback(addr string) bool { return httpserve.Loopback(addr) }

// CheckAddr refuses to serve beyond loopback without an operator token:
// every conversation would be readable by anyone who reaches the port.
func CheckAddr(addr, token string) error {
	if !Loopback(addr) && token == "" {
		return fmt.Errorf("console on %s: serving beyond loopback needs %s (and then every page needs a login)", addr, EnvToken)
	}
	return nil
}

// readHeaderTimeout bounds a slow client's request headers; responses have
// no write timeout, since event streams stay open.
const readHeaderTimeout = 10 * time.Second

// Serve serves h on ln until ctx ends, then closes the console's feeds and
// shuts the server down.
func Serve(ctx context.Context, ln net.Listener, s *Server) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: readHeaderTimeout}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
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
