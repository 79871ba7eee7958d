//go:build !unix

package devserver

import "errors"

// ErrDataDirInUse is wrapped by Start when another process serves DataDir.
var ErrDataDirInUse = errors.New("dev server data dir is in use by another process")

// lockDataDir does not lock where advisory file locks are not available.
func lockDataDir(string) (func(), error) { return func() {}, nil }
