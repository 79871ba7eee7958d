// Command worker runs Tether's agent worker against any Temporal server, or
// with --dev against an embedded one (SQLite in --data-dir, Web UI beside
// it), or with --demo runs one agent end to end and prints its transcript.
package main

import (
	"fmt"
	"os"

	"go.uber.org/fx"

	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/tetherfx"
)

func main() {
	cfg, err := configfx.Load(os.Args[1:], os.Getenv, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(2)
	}
	fx.New(tetherfx.Worker(cfg)).Run()
}
