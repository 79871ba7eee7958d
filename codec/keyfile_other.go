//go:build !unix

package codec

import "io/fs"

// checkPrivate cannot judge access from permission bits off Unix (Windows
// reports 0666 for any writable file); protect the file with its ACL.
func checkPrivate(string, fs.FileInfo) error { return nil }
