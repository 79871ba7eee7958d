package cli

import (
	"strconv"
	"strings"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/blobstore"
	"github.com/tetherdev/tether/internal/startup"
)

// blobs reads the payloads the worker keeps outside history: with
// TETHER_BLOB_DIR naming the worker's blob directory, claims in history
// resolve to their content, and a message too large for history is kept
// there too (from TETHER_BLOB_THRESHOLD bytes).
func (s Starter) blobs(opts *client.Options, dc converter.DataConverter) (converter.DataConverter, error) {
	if s.Env == nil || s.Env(blobstore.EnvDir) == "" {
		return dc, nil
	}
	threshold := 0
	if v := s.Env(blobstore.EnvThreshold); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, &startup.Error{Problem: blobstore.EnvThreshold + "=" + strconv.Quote(v) + " is not a number of bytes",
				Fix: "set it to the worker's --blob-threshold, or unset it for the default"}
		}
		threshold = n
	}
	d, err := blobstore.NewDir(s.Env(blobstore.EnvDir))
	if err != nil {
		return nil, &startup.Error{Problem: "cannot use " + blobstore.EnvDir + " (" + err.Error() + ")",
			Fix: "point it at the worker's --blob-dir", Err: err}
	}
	opts.ExternalStorage = blobstore.Storage(d, threshold)
	return blobstore.Resolving(dc, d), nil
}

// sdkNoDriver is how the SDK says it met a claim with no store to read it
// from; it has no error type to match.
const sdkNoDriver = "[TMPRL1105]"

// noBlobStore explains a claim the starter cannot read: the worker keeps
// large payloads in a blob directory the starter was not told of.
func noBlobStore(err error) error {
	if err == nil || !strings.Contains(err.Error(), sdkNoDriver) {
		return err
	}
	return &startup.Error{Problem: "the agent's history holds payloads kept in the worker's blob directory",
		Fix: "set " + blobstore.EnvDir + " to the worker's --blob-dir (with --dev: <data-dir>/blobs)", Err: err}
}
