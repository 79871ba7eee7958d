package devserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/temporalio/ui-server/v2/server/api"
	"github.com/temporalio/ui-server/v2/server/auth"
	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	"github.com/temporalio/ui-server/v2/server/cors"
	"github.com/temporalio/ui-server/v2/server/csrf"
	"github.com/temporalio/ui-server/v2/server/headers"
	"github.com/temporalio/ui-server/v2/server/route"
	"github.com/temporalio/ui-server/v2/ui"

	"github.com/tetherdev/tether/internal/httpserve"
)

// webUI is the Temporal Web UI serving from this process: the UI server's
// handler, assembled as its NewServer does, behind the Host and Origin
// guard every Tether endpoint has (the UI hands its CSRF cookie to any
// page that asks, so a DNS-rebound page must not reach it) and, with a
// token, behind a login (uiGate).
type webUI struct {
	srv   *http.Server
	cfg   *uiconfig.ConfigProviderWithRefresh
	addr  string     // http://ip:port
	token string     // what the health check logs in with, if any
	done  chan error // receives Serve's result once it returns
}

// uiParams are what startUI serves.
type uiParams struct {
	ip        string
	port      int
	frontend  string // the gRPC host:port the UI proxies to
	namespace string
	// codecEndpoint, when set, is the codec server the UI decodes with.
	codecEndpoint string
	// tls is how the UI dials the frontend; the zero value is plaintext.
	tls uiconfig.TLS
	// token, when set, is what a browser logs in with before the UI
	// answers anything.
	token string
}

// startUI serves the UI for p and returns once it answers /healthz.
func startUI(ctx context.Context, p uiParams) (*webUI, error) {
	cfg, err := uiconfig.NewConfigProviderWithRefresh(&uiconfig.Config{
		Host:                p.ip,
		Port:                p.port,
		TemporalGRPCAddress: p.frontend,
		TLS:                 p.tls,
		EnableUI:            true,
		DefaultNamespace:    p.namespace,
		HideLogs:            true,
		DisableNewsFetch:    true,
		CORS:                uiconfig.CORS{CookieInsecure: true}, // plain http on loopback
		Codec:               uiconfig.Codec{Endpoint: p.codecEndpoint},
	})
	if err != nil {
		return nil, fmt.Errorf("web UI config: %w", err)
	}
	h, err := uiHandler(cfg)
	if err != nil {
		cfg.Close()
		return nil, err
	}
	if p.token != "" {
		h = newUIGate(p.token, h)
	}
	if h, err = (httpserve.Guard{}).Handler(h); err != nil {
		cfg.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", hostPort(p.ip, p.port))
	if err != nil {
		cfg.Close()
		return nil, fmt.Errorf("web UI: %w", err)
	}
	u := &webUI{cfg: cfg, addr: "http://" + ln.Addr().String(), token: p.token, done: make(chan error, 1),
		srv: &http.Server{Handler: h, ReadHeaderTimeout: httpserve.ReadHeaderTimeout}}
	go func() { u.done <- u.srv.Serve(ln) }()
	if err := u.waitHealthy(ctx); err != nil {
		return nil, errors.Join(err, u.stop())
	}
	return u, nil
}

// uiHandler is the UI server's echo instance as its NewServer builds it,
// which serves only on a listener of its own making.
func uiHandler(cfg *uiconfig.ConfigProviderWithRefresh) (http.Handler, error) {
	c, err := cfg.GetConfig()
	if err != nil {
		return nil, err
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.Use(middleware.Recover(), middleware.Gzip())
	e.Use(cors.CORSMiddleware(cors.CORSConfig{
		AllowHeaders: []string{echo.HeaderOrigin, echo.HeaderContentType, echo.HeaderAccept,
			echo.HeaderXCSRFToken, echo.HeaderAuthorization, auth.AuthorizationExtrasHeader, "Caller-Type"},
		AllowCredentials: true,
		ConfigProvider:   cfg,
	}))
	e.Use(middleware.Secure())
	secure := !c.CORS.CookieInsecure
	e.Use(csrf.EnsureTokenCookie(secure))
	e.Use(middleware.CSRFWithConfig(csrf.MiddlewareConfig(cfg, secure)))
	route.SetHealthRoute(e)
	forward := []api.Middleware{headers.WithForwardHeaders([]string{auth.AuthorizationExtrasHeader, "Caller-Type"})}
	if err := route.SetAPIRoutes(e, cfg, forward); err != nil {
		return nil, fmt.Errorf("web UI: %w", err)
	}
	route.SetAuthRoutes(e, cfg)
	assets, err := ui.Assets()
	if err != nil {
		return nil, fmt.Errorf("web UI assets: %w", err)
	}
	if assets, err = fs.Sub(assets, "local"); err != nil {
		return nil, fmt.Errorf("web UI assets: %w", err)
	}
	if err := route.SetUIRoutes(e, c.PublicPath, assets, cfg); err != nil {
		return nil, fmt.Errorf("web UI: %w", err)
	}
	route.SetRenderRoute(e, "/")
	return e, nil
}

func (u *webUI) waitHealthy(ctx context.Context) error {
	hc := &http.Client{Timeout: time.Second}
	var last error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.addr+"/healthz", nil)
		if err != nil {
			return err
		}
		if u.token != "" {
			req.Header.Set("Authorization", "Bearer "+u.token)
		}
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("status %s", resp.Status)
		}
		last = err
		select {
		case err := <-u.done:
			u.done <- err // for stop
			return fmt.Errorf("web UI on %s exited: %v", u.addr, err)
		case <-ctx.Done():
			return fmt.Errorf("web UI on %s not healthy: %w (last: %v)", u.addr, ctx.Err(), last)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop closes the UI's listener and connections.
func (u *webUI) stop() error {
	defer u.cfg.Close()
	if err := u.srv.Close(); err != nil {
		return fmt.Errorf("web UI: %w", err)
	}
	select {
	case err := <-u.done:
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("web UI: %w", err)
		}
		return nil
	case <-time.After(5 * time.Second):
		return fmt.Errorf("web UI on %s did not stop", u.addr)
	}
}
