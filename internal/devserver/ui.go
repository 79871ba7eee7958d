package devserver

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	uiserver "github.com/temporalio/ui-server/v2/server"
	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	uiserveroptions "github.com/temporalio/ui-server/v2/server/server_options"
)

// webUI is the Temporal Web UI serving from this process.
type webUI struct {
	srv  *uiserver.Server
	addr string     // http://ip:port
	done chan error // receives Start's result once it returns
}

// startUI serves the UI for namespace on ip:port, proxying to frontend and
// decoding payloads with the codec server at codecEndpoint when set, and
// returns once it answers /healthz. The port must have been checked free:
// the UI server exits the process when it cannot bind.
func startUI(ctx context.Context, ip string, port int, frontend, namespace, codecEndpoint string) (*webUI, error) {
	host := ip
	if strings.Contains(ip, ":") {
		host = "[" + ip + "]" // the UI formats "%s:%d"
	}
	u := &webUI{
		srv: uiserver.NewServer(uiserveroptions.WithConfigProvider(&uiconfig.Config{
			Host:                host,
			Port:                port,
			TemporalGRPCAddress: frontend,
			EnableUI:            true,
			DefaultNamespace:    namespace,
			HideLogs:            true,
			DisableNewsFetch:    true,
			CORS:                uiconfig.CORS{CookieInsecure: true}, // plain http on loopback
			Codec:               uiconfig.Codec{Endpoint: codecEndpoint},
		})),
		addr: "http://" + hostPort(ip, port),
		done: make(chan error, 1),
	}
	go func() { u.done <- u.srv.Start() }() // Start blocks until Stop
	if err := u.waitHealthy(ctx); err != nil {
		u.srv.Stop()
		return nil, err
	}
	return u, nil
}

func (u *webUI) waitHealthy(ctx context.Context) error {
	hc := &http.Client{Timeout: time.Second}
	var last error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.addr+"/healthz", nil)
		if err != nil {
			return err
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
			return fmt.Errorf("web UI on %s exited: %v", u.addr, err)
		case <-ctx.Done():
			return fmt.Errorf("web UI on %s not healthy: %w (last: %v)", u.addr, ctx.Err(), last)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop closes the UI's listener and returns the error Start returned.
func (u *webUI) stop() error {
	u.srv.Stop()
	select {
	case err := <-u.done:
		if err != nil {
			return fmt.Errorf("web UI: %w", err)
		}
		return nil
	case <-time.After(5 * time.Second):
		return fmt.Errorf("web UI on %s did not stop", u.addr)
	}
}
