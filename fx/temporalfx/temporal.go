// Package temporalfx provides the Temporal client: to the embedded server
// when one runs in the process, otherwise to any Temporal cluster configured
// through go.temporal.io/sdk/contrib/envconfig (address, namespace, TLS, API
// key, profiles) with --address and --namespace taking precedence.
//
// With codec keys configured, every payload the client and its workers
// write is encrypted (package codec); without them, a remote codec server
// named by the temporal.toml profile is used. The client's data converter
// is provided beside it for code that decodes payloads the client hands
// over undecoded (projection, the token stream).
package temporalfx

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/envconfig"
	"go.temporal.io/sdk/converter"
	tlog "go.temporal.io/sdk/log"
	"go.uber.org/fx"
	"google.golang.org/grpc"

	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/internal/devserver"
	"github.com/tetherdev/tether/internal/ratelog"
	"github.com/tetherdev/tether/internal/startup"
)

// Module provides client.Client, closed with the app, its
// converter.DataConverter and the blob store (Blobs).
var Module = fx.Module("temporal", fx.Provide(New, NewBlobs))

// Params are New's dependencies. Server is present only with --dev or --demo.
type Params struct {
	fx.In
	Config    configfx.ClientConfig
	Codec     configfx.CodecConfig
	Blob      configfx.BlobConfig
	Server    *devserver.Server `optional:"true"`
	Lifecycle fx.Lifecycle
	Logger    *slog.Logger
	Blobs     Blobs
	// Instrumentation, when provided, traces and measures the client.
	Instrumentation Instrumentation `optional:"true"`
}

// NoServerFix is what a worker that finds no Temporal server tells its user.
const NoServerFix = "start one, or run with --dev"

// Result is what New provides.
type Result struct {
	fx.Out
	Client client.Client
	// DataConverter is the one Client encodes and decodes payloads with.
	DataConverter converter.DataConverter
}

// dialTimeout bounds the first connection, so a wrong address fails fast.
const dialTimeout = 15 * time.Second

// New dials Temporal.
func New(p Params) (Result, error) {
	opts, err := options(p)
	if err != nil {
		return Result{}, err
	}
	dc, err := codec.Configure(&opts, p.Codec.Keys)
	if err != nil {
		return Result{}, err
	}
	dc = withBlobs(&opts, dc, p.Blobs, p.Blob)
	// The SDK logs an error for every signal it cannot decode: bounded, so
	// whoever may signal an agent cannot fill the worker's log.
	opts.Logger = tlog.NewStructuredLogger(slog.New(ratelog.New(p.Logger.Handler(), ratelog.Options{MinLevel: slog.LevelWarn})))
	p.Instrumentation.apply(&opts)
	opts.ConnectionOptions.DialOptions = append(opts.ConnectionOptions.DialOptions, grpc.WithChainUnaryInterceptor(dropOversizeUpdates))
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	defer cancel()
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		return Result{}, startup.Dial(opts.HostPort, err, NoServerFix)
	}
	p.Lifecycle.Append(fx.StopHook(c.Close))
	if !p.Config.NoSearchAttributes && p.Server == nil {
		if err := EnsureSearchAttributes(ctx, c, opts.Namespace); err != nil {
			c.Close()
			return Result{}, err
		}
	}
	return Result{Client: c, DataConverter: dc}, nil
}

func options(p Params) (client.Options, error) {
	if p.Server != nil {
		return client.Options{HostPort: p.Server.HostPort(), Namespace: p.Server.Namespace(),
			ConnectionOptions: client.ConnectionOptions{TLS: p.Server.ClientTLS()}}, nil
	}
	// A profile's codec endpoint becomes a remote data converter; local
	// keys replace it (codec.Configure).
	opts, err := envconfig.LoadClientOptions(envconfig.LoadClientOptionsRequest{IncludeRemoteCodec: true})
	if err != nil {
		return client.Options{}, fmt.Errorf("load Temporal client config: %w", err)
	}
	if p.Config.Address != "" {
		opts.HostPort = p.Config.Address
	}
	if p.Config.Namespace != "" {
		opts.Namespace = p.Config.Namespace
	}
	if opts.HostPort == "" {
		opts.HostPort = client.DefaultHostPort
	}
	if opts.Namespace == "" {
		opts.Namespace = client.DefaultNamespace
	}
	return opts, nil
}
