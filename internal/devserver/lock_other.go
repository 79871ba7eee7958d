//go:build !unix

package devserver

// lockDataDir does not lock where advisory file locks are not available.
func lockDataDir(string) (func(), error) { return func() {}, nil }
