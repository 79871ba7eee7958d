// Command clusterworker is cmd/worker (the same flags, the same fx app)
// with the benchmark workload added (bench/workload: its model as provider
// "bench" and its 2 KB "fetch" tool, a regular activity), so
// scripts/cluster/run can drive the in-process benchmark's agents against a
// real cluster. It lives under cmd/, not internal/cluster, because it
// composes fx/ and bench/, which nothing under internal/ may import.
package main

import (
	"errors"
	"flag"
	"os"

	"github.com/tetherdev/tether/bench/workload"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/tetherfx"
	"github.com/tetherdev/tether/internal/startup"
)

func main() {
	cfg, err := configfx.Load(os.Args[1:], os.Getenv, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case err != nil:
		os.Exit(startup.Refuse(os.Stderr, "worker", err))
	}
	os.Exit(tetherfx.Run(cfg, os.Stderr, workload.Option()))
}
