package cli

import (
	"context"
	"strconv"
	"strings"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/blobstore"
	"github.com/tetherdev/tether/internal/startup"
)

// blobs reads the payloads the worker keeps outside history: with
// TETHER_BLOB_DIR naming the worker's blob directory, or TETHER_BLOB_STORE
// its PostgreSQL store, claims in history resolve to their content, and a
// message too large for history is kept there too (from
// TETHER_BLOB_THRESHOLD bytes). The function returned closes the store.
func (s Starter) blobs(ctx context.Context, opts *client.Options, dc converter.DataConverter) (converter.DataConverter, func(), error) {
	st, closeStore, err := s.blobStore(ctx)
	if err != nil || st == nil {
		return dc, closeStore, err
	}
	threshold := 0
	if v := s.Env(blobstore.EnvThreshold); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			closeStore()
			return nil, nil, &startup.Error{Problem: blobstore.EnvThreshold + "=" + strconv.Quote(v) + " is not a number of bytes",
				Fix: "set it to the worker's --blob-threshold, or unset it for the default"}
		}
		threshold = n
	}
	opts.ExternalStorage = blobstore.StorageOf(st, threshold)
	return blobstore.ResolvingWith(dc, st), closeStore, nil
}

// blobStore is the store TETHER_BLOB_DIR or TETHER_BLOB_STORE names, or
// nil when neither is set.
func (s Starter) blobStore(ctx context.Context) (blobstore.Store, func(), error) {
	none := func() {}
	if s.Env == nil {
		return nil, none, nil
	}
	dir, url := s.Env(blobstore.EnvDir), s.Env(blobstore.EnvStore)
	switch {
	case dir != "" && url != "":
		return nil, none, &startup.Error{Problem: blobstore.EnvDir + " and " + blobstore.EnvStore + " are both set",
			Fix: "set the one the worker uses (its --blob-dir or --blob-store)"}
	case url != "":
		p, err := blobstore.Open(ctx, url)
		if err != nil {
			return nil, none, &startup.Error{Problem: "cannot use " + blobstore.EnvStore + " (" + err.Error() + ")",
				Fix: "set it to the worker's --blob-store URL", Err: err}
		}
		return p, p.Close, nil
	case dir != "":
		d, err := blobstore.NewDir(dir)
		if err != nil {
			return nil, none, &startup.Error{Problem: "cannot use " + blobstore.EnvDir + " (" + err.Error() + ")",
				Fix: "point it at the worker's --blob-dir", Err: err}
		}
		return d, none, nil
	}
	return nil, none, nil
}

// sdkNoDriver is how the SDK says it met a claim with no store to read it
// from; it has no error type to match.
const sdkNoDriver = "[TMPRL1105]"

// noBlobStore explains a claim the starter cannot read: the worker keeps
// large payloads in a blob store the starter was not told of.
func noBlobStore(err error) error {
	if err == nil || !strings.Contains(err.Error(), sdkNoDriver) {
		return err
	}
	return &startup.Error{Problem: "the agent's history holds payloads kept in the worker's blob store",
		Fix: "set " + blobstore.EnvDir + " to the worker's --blob-dir (with --dev: <data-dir>/blobs), or " +
			blobstore.EnvStore + " to its --blob-store", Err: err}
}
