package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"

	"go.temporal.io/server/common/log"
	"go.temporal.io/server/temporal"

	"github.com/tetherdev/tether/internal/devserver"
)

// Server is a running Temporal server on PostgreSQL, with the Web UI when
// asked. Its methods are safe for concurrent use.
type Server struct {
	srv       temporal.Server
	ui        *devserver.UI
	hostPort  string
	namespace string

	stopOnce sync.Once
	stopErr  error
}

// Start sets up the schemas, runs the server for opts and returns once its
// frontend serves the namespace with Tether's search attributes registered
// (and the UI answers, when asked). Without a deadline on ctx, it waits up
// to two minutes.
func Start(ctx context.Context, opts Options, logger log.Logger) (*Server, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("cluster options: %w", err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, readyTimeout)
		defer cancel()
	}
	if err := SetupSchema(o.Postgres, logger); err != nil {
		return nil, err
	}
	p, err := choosePorts(o)
	if err != nil {
		return nil, err
	}
	// The server and the UI exit the process when they cannot bind.
	for _, port := range []int{o.GRPCPort, o.UIPort} {
		if err := checkPortFree(o.IP, port); err != nil {
			return nil, err
		}
	}
	srv, err := newTemporal(o, p, logger)
	if err != nil {
		return nil, fmt.Errorf("build temporal server: %w", err)
	}
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("start temporal server: %w", err)
	}
	s := &Server{srv: srv, hostPort: hostPort(o.IP, p.frontend), namespace: o.Namespace}
	if err := s.ready(ctx, o.Retention); err != nil {
		return nil, errors.Join(err, s.Stop())
	}
	if p.ui > 0 {
		ui, err := devserver.StartUI(ctx, devserver.UIOptions{IP: o.IP, Port: p.ui, Frontend: s.hostPort, Namespace: o.Namespace})
		if err != nil {
			return nil, errors.Join(err, s.Stop())
		}
		s.ui = ui
	}
	return s, nil
}

func checkPortFree(ip string, port int) error {
	if port <= 0 {
		return nil
	}
	l, err := net.Listen("tcp", hostPort(ip, port))
	if err != nil {
		return fmt.Errorf("port %d on %s is not available: %w", port, ip, err)
	}
	return l.Close()
}

// newTemporal keeps every limit and cache at the release's defaults (no
// dynamic config client), as on a fresh cluster.
func newTemporal(o Options, p ports, logger log.Logger) (temporal.Server, error) {
	return p.node(o.IP).NewServer(serverConfig(o, p), logger)
}

// HostPort is the frontend's gRPC address for client.Options.HostPort.
func (s *Server) HostPort() string { return s.hostPort }

// Namespace is the namespace Start registered or found.
func (s *Server) Namespace() string { return s.namespace }

// UIAddress is the Web UI's base URL, or "" without a UI.
func (s *Server) UIAddress() string {
	if s.ui == nil {
		return ""
	}
	return s.ui.Address()
}

// Stop stops the UI, then the server. Later calls return the first result.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		var errs []error
		if s.ui != nil {
			errs = append(errs, s.ui.Stop())
		}
		if err := s.srv.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("stop temporal server: %w", err))
		}
		s.stopErr = errors.Join(errs...)
	})
	return s.stopErr
}
