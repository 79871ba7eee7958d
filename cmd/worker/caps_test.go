package main

import "testing"

// The worker refuses, before dialing anything, a cap that history could
// not hold without a blob store.
func TestWorkerRefusesACapOverTwoMiBWithoutABlobStore(t *testing.T) {
	requireOneLine(t, "worker: --tool-result-max-bytes 4194304 is over 2 MiB, more than one payload in history may hold: "+
		"configure a blob store (--blob-dir or --blob-store) for larger results",
		"--address", closedAddress(t), "--tool-result-max-bytes", "4194304")
}
