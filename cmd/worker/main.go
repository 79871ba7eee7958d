// Command worker runs Tether's agent worker against any Temporal server, or
// with --dev against an embedded one (SQLite in --data-dir, Web UI beside
// it), or with --demo runs one agent end to end and prints its transcript.
// A failure to start is one sentence on stderr and exit status 2.
package main

import (
	"errors"
	"flag"
	"io"
	"os"

	"go.uber.org/fx"

	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/tetherfx"
	"github.com/tetherdev/tether/internal/startup"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stderr))
}

// run is the worker process; extra options let tests add fakes.
func run(args []string, getenv func(string) string, stderr io.Writer, extra ...fx.Option) int {
	cfg, err := configfx.Load(args, getenv, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		return startup.Refuse(stderr, "worker", err)
	}
	return tetherfx.Run(cfg, stderr, extra...)
}
