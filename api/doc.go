// Package api holds no code: it is where the public packages' API baseline
// lives, and the test of the check that compares the tree with it.
//
// packages lists the public packages (the README's "Build your own worker"
// names them); v<version>/ holds each one's export data at the last release
// (`make api-baseline VERSION=<version>` writes it); apicheck, run by
// `make check`, fails when a listed package changed incompatibly since then
// (golang.org/x/exp/cmd/apidiff, pinned in the script), and passes
// additions. The baseline is files, not a tag, so a clean clone without
// tags checks the same.
//
// It must never hold Go code that the module's packages import, or a second
// baseline directory: the check compares with exactly one.
package api
