package blobstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

// Store is a StorageDriver whose blobs can be listed and deleted, which is
// what Collect needs. Dir and Postgres are the two.
type Store interface {
	converter.StorageDriver
	// Blobs calls fn with each blob the store holds, in no order.
	Blobs(ctx context.Context, fn func(Blob) error) error
	// Delete removes the blob of sum if it was last stored before
	// storedBefore, and reports whether it did. A Store of the same payload
	// racing it either keeps the blob or writes it anew: never a claim
	// without its blob.
	Delete(ctx context.Context, sum string, storedBefore time.Time) (bool, error)
}

// Blob is one blob of a store.
type Blob struct {
	SHA256 string
	// StoredAt is the last time a Store wrote or named this blob: a claim
	// made since may not be in any history yet.
	StoredAt time.Time
	Size     int64
}

// Open opens the store named by url: postgres://… or postgresql://… is a
// PostgreSQL database (OpenPostgres). Close it when done (Postgres has a
// pool of connections).
func Open(ctx context.Context, url string) (*Postgres, error) {
	if !strings.HasPrefix(url, "postgres://") && !strings.HasPrefix(url, "postgresql://") {
		scheme, _, _ := strings.Cut(url, ":")
		return nil, fmt.Errorf("blob store %q: want a postgres:// or postgresql:// URL (a directory is --blob-dir)", scheme)
	}
	return OpenPostgres(ctx, url)
}

// StorageOf is the SDK option keeping payloads of threshold bytes or more
// (0: DefaultThreshold) in s.
func StorageOf(s converter.StorageDriver, threshold int) converter.ExternalStorage {
	if threshold == 0 {
		threshold = DefaultThreshold
	}
	return converter.ExternalStorage{Drivers: []converter.StorageDriver{s}, PayloadSizeThreshold: threshold}
}

// Resolve replaces each claim of s among payloads with the payload it
// names (as the SDK left it: encoded, so with codec keys ciphertext),
// keeping every other payload; the slice returned is new. A claim of
// another driver, or a blob missing or corrupt, is an error naming it.
func Resolve(ctx context.Context, s converter.StorageDriver, payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		rp, err := resolveOne(ctx, s, p)
		if err != nil {
			return nil, err
		}
		out[i] = rp
	}
	return out, nil
}
