//go:build unix

package codec

import (
	"fmt"
	"io/fs"
)

// checkPrivate refuses a file with any group or other permission bits.
func checkPrivate(path string, info fs.FileInfo) error {
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%w: %s has mode %04o: chmod 600 %s", ErrKeyFilePermissions, path, perm, path)
	}
	return nil
}
