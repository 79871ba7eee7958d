package transcript

import (
	"time"

	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

func TestChildrenAreFoldedFromTheParentsLogWithTheirReportsAndEnd(t *testing.T) {
	tr, err := Build(log(t,
		eventlog.ChildStarted{ChildID: "p/c1", CallID: "s1", Mode: eventlog.ChildWait},
		eventlog.ChildStarted{ChildID: "p/c2", Mode: eventlog.ChildDetach},
		eventlog.ChildSettled{ChildID: "p/c1", Turn: 1, Reason: eventlog.EndCompleted, Usage: eventlog.Usage{InputTokens: 10, OutputTokens: 5}},
		eventlog.ChildSettled{ChildID: "p/c2", Turn: 1, Reason: eventlog.EndCompleted, Usage: eventlog.Usage{InputTokens: 1, OutputTokens: 1}},
		eventlog.ChildSettled{ChildID: "p/c2", Turn: 2, Reason: eventlog.EndCompleted, Usage: eventlog.Usage{InputTokens: 2, OutputTokens: 2}},
		eventlog.ChildEnded{ChildID: "p/c1", Status: "completed"},
		eventlog.ChildSettled{ChildID: "unknown", Turn: 1},
	), signals.Prices{})
	require.NoError(t, err)
	require.Len(t, tr.Children, 2, "a report of a child the log never started adds none")
	c1, c2 := tr.Children[0], tr.Children[1]
	require.Equal(t, Child{ID: "p/c1", Mode: eventlog.ChildWait, Settled: 1, Usage: Usage{Input: 10, Output: 5}, Ended: "completed"}, *c1)
	require.Equal(t, Child{ID: "p/c2", Mode: eventlog.ChildDetach, Settled: 2, Usage: Usage{Input: 3, Output: 3}}, *c2)
	require.Same(t, c2, tr.Child("p/c2"))
}

func TestOrchestrationEventsReadInAgentLanguage(t *testing.T) {
	until := t0.Add(time.Hour)
	tr, err := Build(log(t,
		eventlog.ChildStarted{ChildID: "p/c1", Mode: eventlog.ChildWait},
		eventlog.ChildSettled{ChildID: "p/c1", Turn: 1, Reason: eventlog.EndFailed, Error: "auth"},
		eventlog.ChildEnded{ChildID: "p/c1", Status: "failed"},
		eventlog.DecisionRequested{CallID: "c1", Name: "send_mail", Kind: eventlog.NeedApproval, Since: t0},
		eventlog.DecisionMade{CallID: "c1", Approved: false, Decider: "console", Text: "not to customers"},
		eventlog.DecisionRequested{CallID: "c2", Name: "ask_human", Kind: eventlog.NeedAnswer, Since: t0},
		eventlog.DecisionMade{CallID: "c2", Approved: true, Decider: "console", Text: "teal"},
		eventlog.DecisionMade{CallID: "c3", Approved: true, Decider: "timeout"},
		eventlog.WaitStarted{CallID: "c4", Until: until},
	), signals.Prices{})
	require.NoError(t, err)
	var got [][2]string
	for _, b := range tr.Blocks {
		for _, en := range b.Entries {
			if en.Note != nil {
				got = append(got, [2]string{en.Note.Text, en.Note.Class})
			}
		}
	}
	require.Equal(t, [][2]string{
		{"child agent p/c1 started (wait)", ""},
		{"child agent p/c1 reported turn 1: failed: auth", "error"},
		{"child agent p/c1 ended: failed", ""},
		{"send_mail waits for a person's approval", "warn"},
		{"call c1 denied by console: not to customers", "warn"},
		{"ask_human waits for a person's answer", "warn"},
		{"c2 answered by console: teal", ""},
		{"call c3 approved by timeout", ""},
		{"waiting until " + until.Format("2006-01-02 15:04:05 UTC"), ""},
	}, got)
}
