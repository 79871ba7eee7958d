package devserver

import (
	"context"
	"fmt"
)

// What internal/cluster shares with the embedded server: the same Web UI
// beside a server of its own, and the same way of picking free ports.

// UI is a Temporal Web UI served from this process. Stop is not safe for
// concurrent use.
type UI struct{ ui *webUI }

// UIOptions configures StartUI.
type UIOptions struct {
	// IP and Port the UI listens on; the port must be free.
	IP   string
	Port int
	// Frontend is the gRPC host:port of the Temporal frontend it shows.
	Frontend string
	// Namespace the UI opens on.
	Namespace string
	// CodecEndpoint, when set, is the codec server it decodes payloads with.
	CodecEndpoint string
}

// StartUI serves the Web UI for o and returns once it answers /healthz.
func StartUI(ctx context.Context, o UIOptions) (*UI, error) {
	// Checked first: the UI exits the process when it cannot bind.
	if err := checkPortFree(o.IP, o.Port); err != nil {
		return nil, fmt.Errorf("web UI: %w", err)
	}
	u, err := startUI(ctx, uiParams{ip: o.IP, port: o.Port, frontend: o.Frontend, namespace: o.Namespace, codecEndpoint: o.CodecEndpoint})
	if err != nil {
		return nil, err
	}
	return &UI{ui: u}, nil
}

// Address is the UI's base URL, http://ip:port.
func (u *UI) Address() string { return u.ui.addr }

// Stop closes the UI's listener.
func (u *UI) Stop() error { return u.ui.stop() }

// FreePorts returns n distinct TCP ports that are free on ip and that the
// kernel will not hand to another bind to port 0 for about a minute.
func FreePorts(ip string, n int) ([]int, error) { return freePorts(ip, n) }
