package devserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"sync"
	"time"

	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/temporal"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Server is a running embedded Temporal server, with the Web UI when asked.
// Its methods are safe for concurrent use.
type Server struct {
	srv       temporal.Server
	tls       *tls.Config // what clients dial with; nil without MutualTLS
	dc        *dynamicClient
	logLevel  zap.AtomicLevel
	ui        *webUI
	hostPort  string
	namespace string

	release func() // the data dir lock

	stopOnce sync.Once
	stopErr  error
}

// Start runs a server for opts and returns once its frontend answers for
// the namespace with the requested search attributes registered (and the UI
// answers, when asked). Without a deadline on ctx, it waits up to a minute.
func Start(ctx context.Context, opts Options) (*Server, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("devserver options: %w", err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, readyTimeout)
		defer cancel()
	}
	release := func() {}
	if o.DataDir != "" {
		if err := makePrivateDir(o.DataDir); err != nil {
			return nil, err
		}
		if release, err = lockDataDir(o.DataDir); err != nil {
			return nil, err
		}
	}
	s, err := start(ctx, o)
	if err != nil {
		release()
		return nil, err
	}
	s.release = release
	return s, nil
}

func start(ctx context.Context, o Options) (*Server, error) {
	p, err := choosePorts(o)
	if err != nil {
		return nil, err
	}
	st, err := openStores(o)
	if err != nil {
		return nil, err
	}
	conf := serverConfig(o, p, st)
	ui := uiParams{ip: o.IP, port: p.ui, namespace: o.Namespace, codecEndpoint: o.CodecEndpoint, token: o.UIToken}
	var clientTLS *tls.Config
	if o.MutualTLS {
		if clientTLS, ui.tls, err = mutualTLS(conf, o); err != nil {
			return nil, err
		}
	}
	logger, logLevel := serverLogger(o.LogLevel)
	dc := &dynamicClient{static: dynamicConfig(o.DynamicConfig)}
	srv, err := p.node(o.IP).NewServer(conf, logger, temporal.WithDynamicConfigClient(dc))
	if err != nil {
		return nil, fmt.Errorf("build temporal server: %w", err)
	}
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("start temporal server: %w", err)
	}
	s := &Server{srv: srv, tls: clientTLS, dc: dc, logLevel: logLevel, hostPort: hostPort(o.IP, p.frontend), namespace: o.Namespace}
	if err := s.ready(ctx, o.SearchAttributes); err != nil {
		return nil, errors.Join(err, s.Stop())
	}
	if p.ui > 0 {
		ui.frontend = s.hostPort
		if s.ui, err = startServerUI(ctx, ui); err != nil {
			return nil, errors.Join(err, s.Stop())
		}
	}
	return s, nil
}

// mutualTLS puts the data dir's certificates (made anew when missing,
// ending or naming another address) on every service of conf and returns
// the TLS configuration clients dial with and the one the Web UI does.
func mutualTLS(conf *config.Config, o Options) (*tls.Config, uiconfig.TLS, error) {
	f, err := ensureCerts(o.DataDir, o.IP, time.Now())
	if err != nil {
		return nil, uiconfig.TLS{}, err
	}
	f.applyTLS(conf, o.IP)
	c, err := ClientTLS(o.DataDir)
	return c, f.uiTLS(o.IP), err
}

func startServerUI(ctx context.Context, p uiParams) (*webUI, error) {
	// Checked again: the UI exits the process when it cannot bind.
	if err := checkPortFree(p.ip, p.port); err != nil {
		return nil, fmt.Errorf("web UI: %w", err)
	}
	return startUI(ctx, p)
}

// HostPort is the frontend's gRPC address for client.Options.HostPort.
func (s *Server) HostPort() string { return s.hostPort }

// ClientTLS is the TLS configuration clients dial HostPort with: the data
// dir's client certificate with MutualTLS, else nil (plaintext).
func (s *Server) ClientTLS() *tls.Config { return s.tls }

// Namespace is the namespace Start created or found.
func (s *Server) Namespace() string { return s.namespace }

// UIAddress is the Web UI's base URL, http://ip:port, or "" without a UI.
func (s *Server) UIAddress() string {
	if s.ui == nil {
		return ""
	}
	return s.ui.addr
}

// Stop stops the UI, then the server. Later calls return the first result.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		var errs []error
		if s.ui != nil {
			errs = append(errs, s.ui.stop())
		}
		s.logLevel.SetLevel(zapcore.FatalLevel)
		if err := s.srv.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("stop temporal server: %w", err))
		}
		if s.release != nil {
			s.release()
		}
		s.stopErr = errors.Join(errs...)
	})
	return s.stopErr
}
