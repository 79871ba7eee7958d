// Package codecfx serves the worker's payload codec to the Temporal Web UI
// and CLI (the remote codec protocol) on --codec-addr, so operators read
// decrypted payloads. It is included only when an address is configured,
// which requires keys. A payload history holds as a blob claim (--blob-dir,
// --blob-store) is resolved from the blob store before it is decoded, so
// the Web UI shows its content.
//
// The codec server never answers without its bearer token: without
// TETHER_CODEC_AUTH_TOKEN it draws one (under --dev written to the data
// directory, mode 0600, for the CLI), and beyond loopback it refuses to
// start without one. The embedded Web UI, which cannot send a bearer
// header, is pointed at a secret path that serves only its origin. Requests
// naming a foreign Host or coming from a foreign page are refused.
package codecfx

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"

	commonpb "go.temporal.io/api/common/v1"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/blobstore"
	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/temporalfx"
	"github.com/tetherdev/tether/internal/devserver"
	"github.com/tetherdev/tether/internal/httpserve"
	"github.com/tetherdev/tether/internal/startup"
)

// TokenFile is the file in the --dev data directory holding a drawn token.
const TokenFile = devserver.CodecTokenFile

// Module serves the codec server while the app runs.
var Module = fx.Module("codec",
	fx.Provide(New),
	fx.Invoke(func(Endpoint) {}),
)

// Params are New's dependencies.
type Params struct {
	fx.In
	Config    configfx.CodecConfig
	Dev       configfx.DevConfig
	Lifecycle fx.Lifecycle
	Logger    *slog.Logger
	// Blobs resolves the claims the Web UI sends to /decode.
	Blobs temporalfx.Blobs
}

// Endpoint is where the codec server serves.
type Endpoint struct {
	// URL is what the embedded Web UI is pointed at: under --dev with the
	// UI, the base URL and the UI's secret path, so it is never logged.
	URL string
	// Base is the server's base URL; clients send the bearer token there.
	Base string
}

// New binds the address at construction, so the embedded UI can be
// configured with the URL before it starts, and serves from start to stop.
func New(p Params) (Endpoint, error) {
	cfg := p.Config
	c, err := codec.New(cfg.Keys)
	if err != nil {
		return Endpoint{}, err
	}
	token, drawn, err := bearerToken(cfg)
	if err != nil {
		return Endpoint{}, err
	}
	opts := codec.ServerOptions{Origins: cfg.Origins, Token: token}
	if st := p.Blobs.Store; st != nil {
		opts.ResolveClaims = func(ctx context.Context, ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
			return blobstore.Resolve(ctx, st, ps)
		}
	}
	if p.Dev.Dev && p.Dev.UIPort != 0 {
		opts.UIPath = "/ui-" + rand.Text()
	}
	h, err := codec.NewHandler(c, opts)
	if err != nil {
		return Endpoint{}, err
	}
	ln, err := httpserve.Listen(cfg.Addr, "the codec server", "--codec-addr")
	if err != nil {
		return Endpoint{}, err
	}
	base := "http://" + ln.Addr().String()
	tokenFile := ""
	if drawn && p.Dev.Dev {
		// At the start, once the embedded server has made the data
		// directory private (it refuses to lock away a directory holding
		// files not its own).
		p.Lifecycle.Append(fx.StartHook(func() (err error) {
			tokenFile, err = writeToken(p.Dev, token)
			return err
		}))
	}
	err = httpserve.Run(p.Lifecycle, p.Logger, httpserve.Endpoint{
		Name: "Codec server", Listener: ln,
		Server: &http.Server{Handler: h, ReadHeaderTimeout: httpserve.ReadHeaderTimeout},
		Guard:  httpserve.Guard{Hosts: cfg.Hosts, Origins: cfg.Origins},
		Started: func() {
			p.Logger.Info("Serving the payload codec", "url", base, "origins", cfg.Origins,
				"active_key", c.ActiveKeyID(), "require_binding", cfg.Keys.RequireBinding,
				"bearer_token_drawn", drawn, "bearer_token_file", tokenFile)
		},
	})
	if err != nil {
		ln.Close()
		return Endpoint{}, err
	}
	return Endpoint{URL: base + opts.UIPath, Base: base}, nil
}

// bearerToken is the configured token, or one drawn for a server on
// loopback; beyond loopback a drawn token would reach no one, and no token
// would decrypt for anyone, so the worker refuses to start.
func bearerToken(cfg configfx.CodecConfig) (token string, drawn bool, err error) {
	if cfg.Token != "" {
		return cfg.Token, false, nil
	}
	if !httpserve.Loopback(cfg.Addr) {
		return "", false, &startup.Error{
			Problem: fmt.Sprintf("the codec server on %s would decrypt payloads for anyone who reaches it", cfg.Addr),
			Fix:     "set " + configfx.EnvCodecAuthToken + " to the bearer token its clients send, or serve it on loopback with --codec-addr 127.0.0.1:PORT",
		}
	}
	return rand.Text(), true, nil
}

// writeToken leaves a drawn token where the operator's CLI can read it:
// the data directory, readable by its owner only. The token goes into a
// new file, mode 0600 from its creation, renamed over the old one: never
// into the old file, which an earlier release may have left readable by
// others, and which another user may hold open from before the data dir
// was made private.
func writeToken(cfg configfx.DevConfig, token string) (string, error) {
	dir, err := cfg.DataPath()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, TokenFile)
	fi, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("codec server token: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("codec server token: data dir %s is open to other users (mode %04o)", dir, fi.Mode().Perm())
	}
	f, err := os.CreateTemp(dir, TokenFile+".*") // mode 0600
	if err != nil {
		return "", fmt.Errorf("codec server token: %w", err)
	}
	defer os.Remove(f.Name()) // once renamed, nothing
	_, err = f.WriteString(token + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return "", fmt.Errorf("codec server token: %w", err)
	}
	return path, nil
}
