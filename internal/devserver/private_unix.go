//go:build unix

package devserver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// makePrivateDir creates dir 0700 (its missing parents 0755), or tightens an
// existing dir that others may enter. It tightens only a directory that is
// unmistakably the server's (empty, or holding nothing but server files);
// any other open directory is refused, since a --data-dir pointed at a
// shared directory by mistake must not have it locked away.
func makePrivateDir(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("create data dir %s: %w", dir, err)
	}
	// The umask only removes permissions: a new directory is 0700 or less.
	err := os.Mkdir(dir, privateDirMode)
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, fs.ErrExist):
		return fmt.Errorf("create data dir %s: %w", dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("data dir %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("data dir %s is not a directory", dir)
	}
	if fi.Mode().Perm()&0o077 == 0 {
		return nil
	}
	if err := onlyServerFiles(dir); err != nil {
		return fmt.Errorf("%w: %s (mode %04o) %v; make it private (chmod 700 %s) or choose another --data-dir",
			ErrDataDirNotPrivate, dir, fi.Mode().Perm(), err, dir)
	}
	if err := os.Chmod(dir, privateDirMode); err != nil {
		return fmt.Errorf("make data dir %s private: %w", dir, err)
	}
	return nil
}

// onlyServerFiles fails if dir holds anything but the server's files.
func onlyServerFiles(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !slices.Contains(serverFiles, e.Name()) && e.Name() != stampFileName+".tmp" && e.Name() != tlsDirName {
			return fmt.Errorf("holds %s, which is not the server's", e.Name())
		}
	}
	return nil
}

// makePrivateFiles tightens the server's files in dir that exist to 0600:
// an earlier release created them with the umask's mode, usually 0644.
func makePrivateFiles(dir string) error {
	for _, name := range serverFiles {
		path := filepath.Join(dir, name)
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("data dir file %s: %w", path, err)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("data dir file %s is not a regular file", path)
		}
		if fi.Mode().Perm() != privateFileMode {
			if err := os.Chmod(path, privateFileMode); err != nil {
				return fmt.Errorf("make %s private: %w", path, err)
			}
		}
	}
	return nil
}
