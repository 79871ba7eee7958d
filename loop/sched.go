package loop

import "github.com/tetherdev/tether/signals"

// slot is where one tool call stands, as the scheduler sees it.
type slot int

const (
	slotPending slot = iota
	slotRunning
	slotDone
)

// startable returns, in model order, the pending calls that may start now:
//   - parallel calls run concurrently while fewer than bound calls run;
//   - a sequential call waits for every earlier sequential call (one at a
//     time, in model order) and counts against the bound;
//   - an exclusive call is a barrier: it starts only when every earlier call
//     is done, and no later call starts until it is done.
//
// mode is consulted for each call as it is considered, so classification is
// re-checked just before each start.
func startable(slots []slot, mode func(i int) signals.ToolMode, bound int) []int {
	running := 0
	for _, s := range slots {
		if s == slotRunning {
			running++
		}
	}
	var out []int
	allDone, seqBusy := true, false
	for i, s := range slots {
		m := mode(i)
		if m == signals.ToolExclusive {
			if s == slotPending && allDone && running == 0 {
				out = append(out, i)
			}
			if s != slotDone {
				return out // nothing after the barrier starts
			}
			continue
		}
		if s == slotPending && running < bound && !(m == signals.ToolSequential && seqBusy) {
			out = append(out, i)
			running++
			s = slotRunning
		}
		if s != slotDone {
			allDone = false
			if m == signals.ToolSequential {
				seqBusy = true
			}
		}
	}
	return out
}
