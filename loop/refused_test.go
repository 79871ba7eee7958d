package loop

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

func TestARefusedModelSwitchIsNotedOnlyWhenTheRunSaysSo(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	bad := SelectModel{Selection: signals.Selection{Provider: "nope"}}
	for _, noted := range []bool{false, true} {
		l := New(Config{AgentID: "a", Providers: []string{"scripted"}, NoteRefusedSelection: noted})
		rd := l.Step(now, bad)
		require.ErrorIs(t, rd.Err, signals.ErrInvalidOptions)
		require.Empty(t, l.State().Selection, "a refused switch selects nothing")
		if !noted {
			require.Empty(t, rd.Recorded, "runs recorded before leave it out")
			continue
		}
		require.Len(t, rd.Recorded, 1)
		e, err := eventlog.Decode(rd.Recorded[0])
		require.NoError(t, err)
		ms := e.(eventlog.ModelSelected)
		require.Equal(t, "nope", ms.Provider)
		require.Contains(t, ms.Refused, `provider "nope" is not offered`)
	}
}
