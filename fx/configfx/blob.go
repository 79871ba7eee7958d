package configfx

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/tetherdev/tether/blobstore"
)

// Environment of the blob store, read when its flag is not given; the
// starter reads the same variables.
const (
	EnvBlobDir       = blobstore.EnvDir
	EnvBlobThreshold = blobstore.EnvThreshold
)

// BlobConfig keeps payloads too large for history in a directory
// (package blobstore): history then holds a claim naming the blob.
type BlobConfig struct {
	// Dir holds the blobs; empty keeps every payload in history. With
	// --dev or --demo it defaults to <data-dir>/blobs. Every worker and
	// client of the namespace must reach the same directory.
	Dir string
	// Threshold is the smallest encoded payload, in bytes, kept in Dir.
	Threshold int
}

func blobFlags(fs *flag.FlagSet, env func(string) string, c *BlobConfig) {
	fs.StringVar(&c.Dir, "blob-dir", env(EnvBlobDir),
		"directory keeping payloads of --blob-threshold bytes or more outside history (with --dev or --demo: <data-dir>/blobs)")
	fs.IntVar(&c.Threshold, "blob-threshold", blobstore.DefaultThreshold,
		"smallest payload, in bytes, kept in --blob-dir instead of history")
}

// resolveBlob reads the threshold's variable unless the flag is given and
// defaults the directory of an embedded server.
func (c *Config) resolveBlob(fs *flag.FlagSet, env func(string) string) error {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "blob-threshold" })
	if v := env(EnvBlobThreshold); v != "" && !given {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s=%q: want a number of bytes", EnvBlobThreshold, v)
		}
		c.Blob.Threshold = n
	}
	if c.Blob.Dir == "" && c.Embedded() && c.DataDir != "" {
		c.Blob.Dir = filepath.Join(c.DataDir, "blobs")
	}
	return nil
}

// minBlobThreshold keeps claims, which are ~200 bytes, from costing more
// history than the payloads they replace.
const minBlobThreshold = 1 << 10

func (c BlobConfig) validate() []error {
	if c.Threshold < minBlobThreshold {
		return []error{errors.New("--blob-threshold must be at least 1024 bytes")}
	}
	return nil
}
