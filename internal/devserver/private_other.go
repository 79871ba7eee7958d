//go:build !unix

package devserver

import (
	"fmt"
	"os"
)

// makePrivateDir creates dir. Where permissions are not Unix mode bits,
// the directory keeps the access the system gives a user's new directory.
func makePrivateDir(dir string) error {
	if err := os.MkdirAll(dir, privateDirMode); err != nil {
		return fmt.Errorf("create data dir %s: %w", dir, err)
	}
	return nil
}

// makePrivateFiles does nothing where permissions are not Unix mode bits.
func makePrivateFiles(string) error { return nil }
