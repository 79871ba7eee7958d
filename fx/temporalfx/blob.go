package temporalfx

import (
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/blobstore"
	"github.com/tetherdev/tether/fx/configfx"
)

// withBlobs keeps payloads of cfg.Threshold bytes or more in cfg.Dir, for
// the client and every worker built on it. The SDK stores a payload after
// the data converter encoded it, so with codec keys a blob is ciphertext.
// The converter returned resolves claims too, for histories read outside
// the SDK (projection).
func withBlobs(opts *client.Options, dc converter.DataConverter, cfg configfx.BlobConfig) (converter.DataConverter, error) {
	if cfg.Dir == "" {
		return dc, nil
	}
	d, err := blobstore.NewDir(cfg.Dir)
	if err != nil {
		return nil, err
	}
	opts.ExternalStorage = blobstore.Storage(d, cfg.Threshold)
	return blobstore.Resolving(dc, d), nil
}
