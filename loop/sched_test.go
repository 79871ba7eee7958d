package loop

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/signals"
)

func TestStartableSchedulesByExecutionMode(t *testing.T) {
	const (
		P = signals.ToolParallel
		S = signals.ToolSequential
		X = signals.ToolExclusive
		p = slotPending
		r = slotRunning
		d = slotDone
	)
	cases := []struct {
		name  string
		modes []signals.ToolMode
		slots []slot
		bound int
		want  []int
	}{
		{"parallel fill the pool", []signals.ToolMode{P, P, P}, []slot{p, p, p}, 2, []int{0, 1}},
		{"rolling pool refills", []signals.ToolMode{P, P, P}, []slot{d, r, p}, 2, []int{2}},
		{"pool full", []signals.ToolMode{P, P, P}, []slot{r, r, p}, 2, nil},
		{"sequential one at a time", []signals.ToolMode{S, S}, []slot{p, p}, 4, []int{0}},
		{"sequential after the previous", []signals.ToolMode{S, S}, []slot{d, p}, 4, []int{1}},
		{"sequential overlaps parallel", []signals.ToolMode{S, P, S}, []slot{r, p, p}, 4, []int{1}},
		{"exclusive waits for earlier", []signals.ToolMode{P, X, P}, []slot{r, p, p}, 4, nil},
		{"exclusive starts alone", []signals.ToolMode{P, X, P}, []slot{d, p, p}, 4, []int{1}},
		{"nothing passes a running barrier", []signals.ToolMode{X, P}, []slot{r, p}, 4, nil},
		{"after the barrier", []signals.ToolMode{P, X, P, P}, []slot{d, d, p, p}, 4, []int{2, 3}},
		{"barrier first", []signals.ToolMode{X, P}, []slot{p, p}, 4, []int{0}},
		{"all done", []signals.ToolMode{P, X}, []slot{d, d}, 4, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := startable(tc.slots, func(i int) signals.ToolMode { return tc.modes[i] }, tc.bound)
			require.Equal(t, tc.want, got)
		})
	}
}
