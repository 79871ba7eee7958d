// Command worker runs Tether's agent worker against any Temporal server, or
// with --dev against an embedded one (SQLite in --data-dir, Web UI beside
// it), or with --demo runs one agent end to end and prints its transcript.
// A failure to start is one sentence on stderr and exit status 2. It is
// package tether's Main with the flags and environment and nothing added:
// a program with its own tools is the same few lines (examples/tools).
package main

import (
	"io"
	"os"

	"go.uber.org/fx"

	"github.com/tetherdev/tether"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stderr))
}

// run is the worker process; extra options let tests add fakes.
func run(args []string, getenv func(string) string, stderr io.Writer, extra ...fx.Option) int {
	return tether.Main("worker", tether.FromFlags(args), tether.WithEnv(getenv), tether.WithLog(stderr), tether.WithFx(extra...))
}
