package blobstore

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"
)

// Driver names and the claim's key. The name is stored in history beside
// every claim: renaming it makes every stored blob unreadable.
const (
	DirDriverName = "tether-dir"
	DirDriverType = "tether.blobstore.dir"
	ClaimSHA256   = "sha256"
)

// The environment variables the worker and the starter read the store's
// directory and threshold from (when no flag names them).
const (
	EnvDir       = "TETHER_BLOB_DIR"
	EnvThreshold = "TETHER_BLOB_THRESHOLD"
)

// DefaultThreshold is the smallest encoded payload kept outside history:
// the SDK's default, well under Temporal's 2 MiB payload limit.
const DefaultThreshold = 256 << 10

// Errors a Retrieve wraps, for callers that tell them apart.
var (
	// ErrMissing: no file holds the claimed blob.
	ErrMissing = errors.New("blob is missing")
	// ErrCorrupt: the file's bytes do not hash to its name, or do not
	// decode as a payload.
	ErrCorrupt = errors.New("blob is corrupt")
	// ErrBadClaim: the claim names no SHA-256.
	ErrBadClaim = errors.New("claim names no sha256 blob")
)

// Dir is a StorageDriver keeping each payload in a file of one directory.
// It is safe for concurrent use by any number of clients and workers on
// the same directory: files are immutable once renamed into place.
type Dir struct{ path string }

var _ Store = (*Dir)(nil)

// NewDir opens (creating, mode 0700) the directory blobs are kept in.
func NewDir(path string) (*Dir, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("blob dir %s: %w", path, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("blob dir %s: %w", abs, err)
	}
	return &Dir{path: abs}, nil
}

// DirAt is the store of directory path, which its first Store creates
// (mode 0700) if it does not exist yet: for a directory that must not
// exist before the program starts (the embedded server's data dir holds
// nothing it did not make until it has started).
func DirAt(path string) (*Dir, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("blob dir %s: %w", path, err)
	}
	return &Dir{path: abs}, nil
}

// Path is the directory's absolute path.
func (d *Dir) Path() string { return d.path }

// Name implements converter.StorageDriver.
func (d *Dir) Name() string { return DirDriverName }

// Type implements converter.StorageDriver.
func (d *Dir) Type() string { return DirDriverType }

// Store writes each payload to the file named by its SHA-256.
func (d *Dir) Store(ctx converter.StorageDriverStoreContext, payloads []*commonpb.Payload) ([]converter.StorageDriverClaim, error) {
	claims := make([]converter.StorageDriverClaim, len(payloads))
	for i, p := range payloads {
		err := ctx.GetLimiter().Permit(ctx.Context, p, func() error {
			sum, err := d.write(p)
			claims[i] = converter.StorageDriverClaim{ClaimData: map[string]string{ClaimSHA256: sum}}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return claims, nil
}

// Retrieve reads back the payload of each claim, checking its hash.
func (d *Dir) Retrieve(ctx converter.StorageDriverRetrieveContext, claims []converter.StorageDriverClaim) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(claims))
	for i, c := range claims {
		err := ctx.GetLimiter().Permit(ctx.Context, c, func() error {
			p, err := d.read(c)
			out[i] = p
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (d *Dir) write(p *commonpb.Payload) (string, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("encode blob: %w", err)
	}
	h := sha256.Sum256(b)
	sum := hex.EncodeToString(h[:])
	file := d.file(sum)
	if _, err := os.Stat(file); err == nil {
		// Content-addressed: already there, and immutable. Its time moves
		// forward, so Collect keeps it for the claim about to be made;
		// if Collect took it meanwhile, it is written anew.
		now := time.Now()
		if err := os.Chtimes(file, now, now); err == nil {
			return sum, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("store blob sha256:%s (file %s): %w", sum, file, err)
		}
	}
	tmp, err := os.CreateTemp(d.path, ".tmp-"+sum[:16]+"-*")
	if errors.Is(err, fs.ErrNotExist) { // DirAt's, before its first blob
		if err = os.MkdirAll(d.path, 0o700); err == nil {
			tmp, err = os.CreateTemp(d.path, ".tmp-"+sum[:16]+"-*")
		}
	}
	if err != nil {
		return "", fmt.Errorf("store blob sha256:%s: %w", sum, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename, a no-op
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file) // CreateTemp made it 0600
	}
	if err != nil {
		return "", fmt.Errorf("store blob sha256:%s (file %s): %w", sum, file, err)
	}
	return sum, nil
}

func (d *Dir) read(c converter.StorageDriverClaim) (*commonpb.Payload, error) {
	sum, err := claimSum(c)
	if err != nil {
		return nil, err
	}
	file := d.file(sum)
	b, err := os.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: sha256:%s (file %s)", ErrMissing, sum, file)
	case err != nil:
		return nil, fmt.Errorf("read blob sha256:%s (file %s): %w", sum, file, err)
	}
	return decodeBlob(sum, b, "file "+file)
}

// file is where the blob of sum lives: claims are checked to be hex, so
// a claim cannot name a file outside the directory.
func (d *Dir) file(sum string) string { return filepath.Join(d.path, sum) }

// Storage is the SDK option keeping payloads of threshold bytes or more
// (0: DefaultThreshold) in d.
func Storage(d *Dir, threshold int) converter.ExternalStorage {
	return StorageOf(d, threshold)
}
