package chaos

import (
	"flag"
	"os"
	"testing"
	"time"
)

// The short run's defaults are what `make test` runs; `make chaos` passes
// the benchmark run's figures.
var (
	flagSeed      = flag.Uint64("chaos.seed", 0, "seed of the schedule, the fleet's mix and the flood (0: a random one, printed)")
	flagAgents    = flag.Int("chaos.agents", len(kinds), "agents in the fleet; their kinds cycle through "+kindList())
	flagKills     = flag.Int("chaos.kills", 4, "worker processes killed with SIGKILL")
	flagRestarts  = flag.Int("chaos.restarts", 1, "server processes killed with SIGKILL and restarted on their database")
	flagInterval  = flag.Duration("chaos.interval", 10*time.Second, "mean time between two kills")
	flagRounds    = flag.Int("chaos.rounds", 2, "rounds every agent completes at least (it goes on until the last kill)")
	flagFlood     = flag.Duration("chaos.flood", 250*time.Millisecond, "mean time between two bad inputs")
	flagBigEvery  = flag.Duration("chaos.big-every", 5*time.Second, "least time between two inputs of about 2 MB")
	flagStarts    = flag.Int("chaos.starts", 12, "most agent workflows the flood starts")
	flagRound     = flag.Duration("chaos.round-timeout", 10*time.Minute, "a round of an agent taking longer fails the run")
	flagKnownBugs = flag.Bool("chaos.known-bugs", false, "also send the flood attacks that trigger known bugs (see attack.bug)")
	flagDir       = flag.String("chaos.dir", "", "run directory (default: a new temporary one, removed unless the run fails)")
	flagFaults    = flag.Int("chaos.client-faults", 1, "rounds of the client faults (bursts, long queues, children disposed mid-turn, crashing MCP calls) at least (they go on until the last kill); 0 leaves them out")
	flagBare      = flag.Bool("chaos.no-search-attributes", false, "run the workers with --no-search-attributes, where a turn that ends on a model's answer journals nothing")
)

func TestMain(m *testing.M) {
	switch os.Getenv(envRole) {
	case roleServer:
		os.Exit(runServer())
	case roleWorker:
		os.Exit(runWorker(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func kindList() string {
	s := ""
	for i, k := range kinds {
		if i > 0 {
			s += ", "
		}
		s += string(k)
	}
	return s
}
