package configfx

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tetherdev/tether/blobstore"
)

// Environment of the blob store, read when its flag is not given; the
// starter reads the same variables.
const (
	EnvBlobDir       = blobstore.EnvDir
	EnvBlobStore     = blobstore.EnvStore
	EnvBlobThreshold = blobstore.EnvThreshold
)

// BlobConfig keeps payloads too large for history in a blob store
// (package blobstore): history then holds a claim naming the blob.
type BlobConfig struct {
	// Dir holds the blobs in files; with --dev or --demo it defaults to
	// <data-dir>/blobs (unless Store is set). Every worker and client of
	// the namespace must reach the same directory.
	Dir string
	// Store is the URL of a shared store, postgres://… (a PostgreSQL
	// database every worker and client reaches); it excludes Dir. It may
	// hold a password: it is read from the environment, not a default
	// `worker -h` would print.
	Store string
	// Threshold is the smallest encoded payload, in bytes, kept in the
	// store.
	Threshold int
}

// Configured reports whether payloads over the threshold leave history.
func (c BlobConfig) Configured() bool { return c.Dir != "" || c.Store != "" }

func blobFlags(fs *flag.FlagSet, env func(string) string, c *BlobConfig) {
	fs.StringVar(&c.Dir, "blob-dir", env(EnvBlobDir),
		"directory keeping payloads of --blob-threshold bytes or more outside history (with --dev or --demo: <data-dir>/blobs)")
	fs.StringVar(&c.Store, "blob-store", "",
		"postgres://… URL of a PostgreSQL database keeping those payloads instead, shared by every worker and client (its password: set the variable, or PGPASSWORD/PGPASSFILE)")
	fs.IntVar(&c.Threshold, "blob-threshold", blobstore.DefaultThreshold,
		"smallest payload, in bytes, kept in the blob store instead of history")
}

// resolveBlob reads the variables of flags not given and defaults the
// directory of an embedded server.
func (c *Config) resolveBlob(fs *flag.FlagSet, env func(string) string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if v := env(EnvBlobThreshold); v != "" && !given["blob-threshold"] {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s=%q: want a number of bytes", EnvBlobThreshold, v)
		}
		c.Blob.Threshold = n
	}
	if !given["blob-store"] {
		c.Blob.Store = env(EnvBlobStore)
	}
	if c.Blob.Store != "" && c.Blob.Dir != "" {
		return fmt.Errorf("--blob-dir and --blob-store (or %s and %s) exclude each other: name one store", EnvBlobDir, EnvBlobStore)
	}
	if !c.Blob.Configured() && c.Embedded() && c.DataDir != "" {
		c.Blob.Dir = filepath.Join(c.DataDir, "blobs")
	}
	return nil
}

// minBlobThreshold keeps claims, which are ~200 bytes, from costing more
// history than the payloads they replace.
const minBlobThreshold = 1 << 10

func (c BlobConfig) validate() []error {
	var errs []error
	if c.Threshold < minBlobThreshold {
		errs = append(errs, errors.New("--blob-threshold must be at least 1024 bytes"))
	}
	if c.Store != "" && !strings.HasPrefix(c.Store, "postgres://") && !strings.HasPrefix(c.Store, "postgresql://") {
		scheme, _, _ := strings.Cut(c.Store, ":")
		errs = append(errs, fmt.Errorf("--blob-store %q…: want a postgres:// or postgresql:// URL (a directory is --blob-dir)", scheme))
	}
	return errs
}
