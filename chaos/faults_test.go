package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/signals"
)

// fault is one kind of client fault (issue 19): what a careless or busy
// client does to an agent of its own, beside the fleet, while the
// schedule kills processes. Each runs on agents made for it, whose
// messages go into the ledger, so every check of the fleet applies to
// them too; its own invariants are checked once the fleet is quiescent.
type fault struct {
	name string
	run  func(ctx context.Context, cf *clientFaults, n int) error
}

var faults = []fault{
	{name: "burst", run: runBurst},
	{name: "long-queue", run: runLongQueue},
	{name: "dispose-mid-turn", run: runDisposeMidTurn},
	{name: "mcp-crash", run: runMCPCrash},
}

// clientFaults runs the faults in a seeded order, round after round, until
// the schedule is over and each ran minRounds times (a round begun after
// that stops at the next fault). Safe for concurrent
// use.
type clientFaults struct {
	agents *agent.Client
	c      client.Client
	led    *ledger
	rng    *rand.Rand

	mu      sync.Mutex
	ids     []string       // the agents made for faults, in order
	ran     map[string]int // fault → times run
	bursts  burstTally
	queues  queueTally
	trees   []tree
	mcp     mcpTally
	findErr []string // what went wrong while a fault ran: violations
	// lateCanceled counts executions of calls canceled by a dispose that
	// started after the cancel was recorded (filled by check).
	lateCanceled int
}

func newClientFaults(c client.Client, led *ledger, seed uint64) *clientFaults {
	return &clientFaults{agents: agent.New(c, ""), c: c, led: led, rng: rand.New(rand.NewPCG(seed, 4)), ran: map[string]int{}}
}

// run plays the faults until quiet is closed and every fault ran
// minRounds times; zero rounds runs none.
func (cf *clientFaults) run(ctx context.Context, quiet <-chan struct{}, minRounds int) {
	if minRounds <= 0 {
		return
	}
	for r := 1; ; r++ {
		select {
		case <-quiet:
			if r > minRounds {
				return
			}
		case <-ctx.Done():
			return
		default:
		}
		order := slices.Clone(faults)
		cf.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, f := range order {
			select {
			case <-quiet: // the rounds before this one are enough: stop, not to hold the run up
				if r > minRounds {
					return
				}
			default:
			}
			if err := f.run(ctx, cf, r); err != nil {
				cf.fail("%s %d: %v", f.name, r, err)
			}
			cf.mu.Lock()
			cf.ran[f.name]++
			cf.mu.Unlock()
		}
	}
}

func (cf *clientFaults) fail(format string, args ...any) {
	cf.mu.Lock()
	defer cf.mu.Unlock()
	cf.findErr = append(cf.findErr, fmt.Sprintf(format, args...))
}

// create starts an agent of a fault; a create whose answer was lost finds
// it there.
func (cf *clientFaults) create(ctx context.Context, id string, o signals.AgentOptions) (*agent.Handle, error) {
	var h *agent.Handle
	_, err := persist(ctx, func(ctx context.Context) error {
		var err error
		h, err = cf.agents.Create(ctx, agent.CreateOptions{ID: id, Options: o})
		if errors.Is(err, agent.ErrAlreadyExists) {
			h, err = cf.agents.Attach(ctx, id)
		}
		return err
	})
	if err == nil {
		cf.mu.Lock()
		cf.ids = append(cf.ids, id)
		cf.mu.Unlock()
	}
	return h, err
}

// agentIDs lists the agents the faults made, for quiescence and the checks.
func (cf *clientFaults) agentIDs() []string {
	cf.mu.Lock()
	defer cf.mu.Unlock()
	return slices.Clone(cf.ids)
}

// settle waits until h is idle.
func settle(ctx context.Context, h *agent.Handle) error {
	_, err := persist(ctx, func(ctx context.Context) error { _, err := h.WaitIdle(ctx); return err })
	return err
}

// errGiveUp marks a condition's error that ends waitFor: it will never
// hold.
var errGiveUp = errors.New("gave up")

// waitFor asks cond again and again (pausing between looks, never
// assuming the condition holds after some time) until it holds, it says
// it never will (errGiveUp), or ctx ends.
func waitFor(ctx context.Context, what string, cond func(context.Context) (bool, error)) error {
	var last error
	for {
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		ok, err := cond(cctx)
		cancel()
		switch {
		case ok:
			return nil
		case errors.Is(err, errGiveUp):
			return fmt.Errorf("waiting for %s: %w", what, err)
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w (last: %v)", what, ctx.Err(), last)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// check runs each fault's own invariants on the quiescent agents.
func (cf *clientFaults) check(ctx context.Context, records []*record, v *violations) {
	cf.mu.Lock()
	errs := slices.Clone(cf.findErr)
	cf.mu.Unlock()
	for _, e := range errs {
		v.add("client fault: %s", e)
	}
	byID := map[string]*record{}
	late := 0
	for _, r := range records {
		byID[r.id] = r
		late += r.lateCanceled
	}
	cf.mu.Lock()
	cf.lateCanceled = late
	cf.mu.Unlock()
	for _, id := range cf.agentIDs() {
		checkRunning(ctx, cf.c, id, v)
	}
	cf.checkTrees(ctx, byID, v)
	cf.checkMCP(byID, v)
}

// summary is the report's lines of the client faults.
func (cf *clientFaults) summary() []string {
	cf.mu.Lock()
	defer cf.mu.Unlock()
	b, q, m := cf.bursts, cf.queues, cf.mcp
	spent, budget := int64(0), int64(0)
	for _, t := range cf.trees {
		spent, budget = spent+t.spent, budget+t.budget
	}
	return []string{
		fmt.Sprintf("client faults: bursts %d, long queues %d, children disposed mid-turn %d, crashing MCP calls %d",
			cf.ran["burst"], cf.ran["long-queue"], cf.ran["dispose-mid-turn"], cf.ran["mcp-crash"]),
		fmt.Sprintf("  burst: %d messages of %d KiB from %d senders at once each: %d delivered, %d refused busy, "+
			"%d unknown then resent, %d answered duplicate on a resend; at most %d waiting (%d fit in the agent's %d KiB)",
			b.messages, burstBytes>>10, burstSenders, b.delivered, b.busy, b.unknown, b.dups, b.peak,
			signals.MaxPendingBytes/burstBytes, signals.MaxPendingBytes>>10),
		fmt.Sprintf("  long queue: %d messages after the first (window %d); its resends answered duplicate %d of %d "+
			"(%d as signals dropped)", q.after, maxRecentIDs, q.dupUpdates, q.updates, q.signals),
		fmt.Sprintf("  disposed mid-turn: %d children disposed at step %s; the trees spent %d tokens of budgets of %d; "+
			"%d canceled tool calls started after their cancel was recorded", len(cf.trees), treeSteps(cf.trees), spent, budget,
			cf.lateCanceled),
		fmt.Sprintf("  mcp crash: %d calls of a tool whose server exits on every call, each an error result after %d faults; "+
			"%d calls of the server's echo after them", m.crashCalls, maxMCPFaults, m.echoCalls),
	}
}
