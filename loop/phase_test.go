package loop

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

func TestAnInvalidTransitionNamesThePhaseAndTheTrailThatLedToIt(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.followup("f1")
	d.resume()
	take[CallModel](d)
	d.step(ToolDone{CallID: "c1"})
	err := d.l.Err()
	require.ErrorIs(t, err, eventlog.ErrInvalidTransition)
	require.EqualError(t, err, "eventlog: invalid transition: loop.ToolDone in phase calling, "+
		"after idle → proposing → boundary → choosing → deciding → preparing → shaping → calling")
}

func TestAnInvalidTransitionBeforeAnyPhaseChangeNamesOnlyThePhase(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{})
	d.step(ModelDone{Output: answer("out of the blue")})
	require.EqualError(t, d.l.Err(), "eventlog: invalid transition: loop.ModelDone in phase idle")
}

func TestTheTrailKeepsTheLatestEightPhaseChanges(t *testing.T) {
	var tr trail
	require.Empty(t, tr.String())
	from := idle
	for _, to := range []phase{proposing, boundary, choosing, deciding, preparing, shaping, calling, tooling, proposing, stopping} {
		tr.add(from, to)
		from = to
		if tr.n == 1 {
			require.Equal(t, "idle → proposing", tr.String())
		}
	}
	require.Equal(t, "… boundary → choosing → deciding → preparing → shaping → calling → tooling → proposing → stopping", tr.String())
}

func TestAMoveToThePhaseTheLoopIsInLeavesTheTrailAlone(t *testing.T) {
	l := New(Config{AgentID: "a1"})
	l.moveTo(idle)
	require.Zero(t, l.trail.n)
	l.moveTo(proposing)
	l.moveTo(proposing)
	require.Equal(t, "idle → proposing", l.trail.String())
}
