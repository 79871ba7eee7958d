package signals

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
)

// Seed 003: followup = next-turn + wake, steer = next-step + wake, inject =
// next-step without wake. The client and the workflow both read the route
// from this one table, so this is the only place it can be wrong.
func TestMessageOpsRouteAsTheSeedSays(t *testing.T) {
	want := []struct {
		name string
		list eventlog.List
		wake bool
	}{
		{"followup", eventlog.NextTurn, true},
		{"steer", eventlog.NextStep, true},
		{"inject", eventlog.NextStep, false},
	}
	ops := MessageOps()
	require.Len(t, ops, len(want))
	for i, w := range want {
		op := ops[i]
		require.Equal(t, w.name, op.Signal.Name)
		require.Equal(t, w.name, op.Update.Name, "a signal and its update share the name")
		require.Equal(t, Route{List: w.list, Wake: w.wake}, op.Route, w.name)
		rt, ok := RouteOf(w.name)
		require.True(t, ok, w.name)
		require.Equal(t, op.Route, rt)
	}
	require.Equal(t, []MessageOp{Followup, Steer, Inject}, ops)
}

func TestRouteOfSendAndOtherNamesIsNone(t *testing.T) {
	for _, name := range []string{SendSignal.Name, CancelSignal.Name, DisposeSignal.Name, ""} {
		_, ok := RouteOf(name)
		require.False(t, ok, name)
	}
}

// A scheduled followup travels as a send on Followup's route, and a send's
// route reads back as it was given.
func TestRouteSendCarriesTheRoute(t *testing.T) {
	at := time.Date(2026, 12, 2, 4, 0, 0, 0, time.UTC)
	m := Message{ID: "m1", Content: "later"}
	s := Followup.Route.Send(m, at)
	require.Equal(t, Send{Message: m, List: eventlog.NextTurn, Wake: true, At: at}, s)
	require.Equal(t, Followup.Route, s.Route())
	require.Equal(t, Inject.Route, Send{List: eventlog.NextStep}.Route())
}
