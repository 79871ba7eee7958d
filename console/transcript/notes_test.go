package transcript

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

func TestScheduledMessagesAndModelSwitchesReadAsWhatTheyAre(t *testing.T) {
	due := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	evs := append(toolTurn(),
		eventlog.MessageScheduled{MessageID: "s1", List: eventlog.NextTurn, Content: "daily report", Wake: true, At: due},
		eventlog.ModelSelected{Selection: eventlog.Selection{Provider: "scripted", Model: "scripted-demo"}, Resolved: true},
		eventlog.ModelSelected{Selection: eventlog.Selection{Provider: "nope"}, Refused: `provider "nope" is not offered`},
	)
	tr, err := Build(log(t, evs...), signals.Prices{})
	require.NoError(t, err)
	gap := tr.Blocks[len(tr.Blocks)-1]
	var texts, classes []string
	for _, e := range gap.Entries {
		texts, classes = append(texts, e.Note.Text), append(classes, e.Note.Class)
	}
	require.Equal(t, []string{
		"message s1 scheduled for 2026-12-01 10:00:00 UTC (next-turn): daily report",
		"runs on scripted/scripted-demo (the worker's default)",
		`model switch to nope/default refused: provider "nope" is not offered`,
	}, texts)
	require.Equal(t, []string{"", "", "warn"}, classes)
	require.Equal(t, &eventlog.Selection{Provider: "scripted", Model: "scripted-demo"}, tr.InForce,
		"a refused switch is not the model in force")
	require.Nil(t, tr.Selection, "the worker's defaults resolved are no switch")
}
