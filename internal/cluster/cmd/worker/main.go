// Command worker is cmd/worker (the same flags, the same fx app) with the
// benchmark workload added (bench/workload: its model as provider "bench"
// and its 2 KB "fetch" tool, a regular activity), so scripts/cluster/run can
// drive the in-process benchmark's agents against a real cluster.
package main

import (
	"fmt"
	"os"

	"go.uber.org/fx"

	"github.com/tetherdev/tether/bench/workload"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/tetherfx"
)

func main() {
	cfg, err := configfx.Load(os.Args[1:], os.Getenv, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(2)
	}
	fx.New(tetherfx.Worker(cfg), workload.Option()).Run()
}
