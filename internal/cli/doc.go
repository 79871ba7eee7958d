// Package cli implements cmd/starter: a thin command line over the agent
// client package. It parses arguments, calls one agent operation and prints
// the outcome; every error it prints is typed by the agent package, except
// a failure to start (a usage error, no Temporal server), which is one line
// saying what to do, with exit status 2 (internal/startup). fork and diff
// (fork.go) read agents from history, so they work on closed agents and
// with no worker.
package cli
