package temporalfx

import (
	"context"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/blobstore"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/internal/startup"
)

// Blobs is the store payloads too large for history are kept in; Store is
// nil when none is configured. The codec server resolves claims with it.
type Blobs struct{ Store blobstore.Store }

// NewBlobs opens the configured store: --blob-store's database (its
// connections closed when the app stops) or --blob-dir's directory.
func NewBlobs(b configfx.BlobConfig, dev configfx.DevConfig, lc fx.Lifecycle) (Blobs, error) {
	switch {
	case b.Store != "":
		ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
		defer cancel()
		p, err := blobstore.Open(ctx, b.Store)
		if err != nil {
			return Blobs{}, &startup.Error{Problem: "cannot use the blob store (" + err.Error() + ")",
				Fix: "check --blob-store (" + configfx.EnvBlobStore + "): a postgres:// URL of a database the worker may create a table in", Err: err}
		}
		lc.Append(fx.StopHook(p.Close))
		return Blobs{Store: p}, nil
	case b.Dir != "" && dev.Embedded():
		// Made at the first blob: the embedded server refuses a data
		// dir holding what it did not make until it has started.
		d, err := blobstore.DirAt(b.Dir)
		if err != nil {
			return Blobs{}, err
		}
		return Blobs{Store: d}, nil
	case b.Dir != "":
		d, err := blobstore.NewDir(b.Dir)
		if err != nil {
			return Blobs{}, err
		}
		return Blobs{Store: d}, nil
	}
	return Blobs{}, nil
}

// withBlobs keeps payloads of cfg.Threshold bytes or more in the store,
// for the client and every worker built on it. The SDK stores a payload
// after the data converter encoded it, so with codec keys a blob is
// ciphertext. The converter returned resolves claims too, for histories
// read outside the SDK (projection).
func withBlobs(opts *client.Options, dc converter.DataConverter, b Blobs, cfg configfx.BlobConfig) converter.DataConverter {
	if b.Store == nil {
		return dc
	}
	opts.ExternalStorage = blobstore.StorageOf(b.Store, cfg.Threshold)
	return blobstore.ResolvingWith(dc, b.Store)
}
