package blobstore

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Blobs implements Store: the files named by a SHA-256 (temporary files of
// a write under way are not blobs yet). A file's modification time is when
// a Store last wrote or named it.
func (d *Dir) Blobs(ctx context.Context, fn func(Blob) error) error {
	entries, err := os.ReadDir(d.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // DirAt's, before its first blob
	}
	if err != nil {
		return fmt.Errorf("list blobs (dir %s): %w", d.path, err)
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !validSum(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted meanwhile
		} else if err != nil {
			return fmt.Errorf("list blobs (dir %s): %w", d.path, err)
		}
		if err := fn(Blob{SHA256: e.Name(), StoredAt: info.ModTime(), Size: info.Size()}); err != nil {
			return err
		}
	}
	return nil
}

// Delete implements Store. The file is first renamed aside, so that a
// Store naming it meanwhile either touched it before (and it is put back)
// or finds it gone and writes it anew.
func (d *Dir) Delete(_ context.Context, sum string, storedBefore time.Time) (bool, error) {
	if !validSum(sum) {
		return false, fmt.Errorf("%w: %q", ErrBadClaim, sum)
	}
	file := d.file(sum)
	aside := filepath.Join(d.path, ".gc-"+sum[:16]+"-"+rand.Text())
	switch err := os.Rename(file, aside); {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("delete blob sha256:%s (file %s): %w", sum, file, err)
	}
	info, err := os.Stat(aside)
	if err == nil && info.ModTime().Before(storedBefore) {
		if err := os.Remove(aside); err != nil {
			return false, fmt.Errorf("delete blob sha256:%s (file %s): %w", sum, aside, err)
		}
		return true, nil
	}
	// Stored again since it was listed: back in place (or already
	// written anew, with the same bytes).
	if lerr := os.Link(aside, file); lerr != nil && !errors.Is(lerr, fs.ErrExist) {
		return false, fmt.Errorf("keep blob sha256:%s (put %s back as %s): %w", sum, aside, file, lerr)
	}
	os.Remove(aside)
	return false, err
}
