package loop

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Edit before approve (issue 25): a person approves a waiting call with
// edited arguments.

// waitingFor is a driver whose model called t with args, held for approval.
func waitingFor(t *testing.T, pol signals.ApprovalPolicy, args string, cfg ...func(*Config)) *driver {
	pol.Tools = append(pol.Tools, "t")
	d := newDriver(t, signals.AgentOptions{Tools: []string{"t"}, Approval: &pol}, cfg...)
	d.followup("f1")
	d.resume()
	d.answerModel(call("t", args))
	require.Len(t, d.l.Status().Pending, 1)
	return d
}

// seenByModel is the conversation a model request folds from the log.
func seenByModel(d *driver) []eventlog.Message {
	var c eventlog.Conversation
	for _, e := range d.events() {
		c.Apply(e)
	}
	return c.Messages()
}

func TestAnApprovalWithEditedArgumentsRunsTheCallWithThemAndRecordsTheOriginal(t *testing.T) {
	d := waitingFor(t, signals.ApprovalPolicy{}, `{"to":"ceo@example.com"}`)
	edit := eventlog.JSON(`{"to":"ops@example.com"}`)
	dec := signals.Decision{ID: "d1", CallID: "c0", Decider: "alice", Args: edit}
	require.NoError(t, d.l.CheckDecision(Approve, dec))
	require.NoError(t, d.step(Decide{Verdict: Approve, Decision: dec}).Err)

	made := only[eventlog.DecisionMade](d.events())[0]
	require.Equal(t, eventlog.DecisionMade{CallID: "c0", Approved: true, Decider: "alice",
		Args: edit, Original: `{"to":"ceo@example.com"}`}, made)
	run := inFlight[StartTool](d)
	require.Len(t, run, 1)
	require.JSONEq(t, string(edit), string(run[0].Call.Arguments), "the call runs with the edit")
	require.JSONEq(t, string(edit), string(run[0].Input.Arguments), "the edit travels in the input: the log's assistant message holds the model's")
	require.Zero(t, run[0].Input.AssistantSeq)

	d.finishTool("c0", "sent")
	msgs := seenByModel(d)
	var asked eventlog.Message
	for _, m := range msgs {
		if m.Role == eventlog.RoleAssistant {
			asked = m
		}
	}
	require.JSONEq(t, string(edit), string(asked.ToolCalls[0].Arguments), "the model sees its call as made")
	require.Equal(t, "sent", msgs[len(msgs)-1].Content)
	first := only[eventlog.AssistantMessage](d.events())[0]
	require.JSONEq(t, `{"to":"ceo@example.com"}`, string(first.ToolCalls[0].Arguments), "the log keeps what the model asked")
	d.requireOK()
}

func TestLargeEditedArgumentsStillTravelInTheInput(t *testing.T) {
	d := waitingFor(t, signals.ApprovalPolicy{}, `{"body":"x"}`)
	edit := eventlog.JSON(`{"body":"` + strings.Repeat("y", 4*signals.MaxInlineArguments) + `"}`)
	require.NoError(t, d.step(Decide{Verdict: Approve, Decision: signals.Decision{ID: "d1", CallID: "c0", Args: edit}}).Err)
	run := inFlight[StartTool](d)
	require.Len(t, run, 1)
	require.Equal(t, string(edit), string(run[0].Input.Arguments))
}

func TestEditsTheLoopRefusesLeaveTheCallWaiting(t *testing.T) {
	obj := eventlog.JSON(`{"to":"x"}`)
	cases := []struct {
		name    string
		pol     signals.ApprovalPolicy
		rules   Rules
		verdict Verdict
		args    eventlog.JSON
		want    error
	}{
		{"forbidden for the tool", signals.ApprovalPolicy{NoEdit: []string{"t"}}, 0, Approve, obj, signals.ErrInvalidEdit},
		{"forbidden for every tool", signals.ApprovalPolicy{NoEdit: []string{"*"}}, 0, Approve, obj, signals.ErrInvalidEdit},
		{"a denial carries none", signals.ApprovalPolicy{}, 0, Deny, obj, signals.ErrInvalidEdit},
		{"not an object", signals.ApprovalPolicy{}, 0, Approve, eventlog.JSON(`["to"]`), signals.ErrInvalidEdit},
		{"not JSON", signals.ApprovalPolicy{}, 0, Approve, eventlog.JSON(`{to`), signals.ErrInvalidEdit},
		{"null", signals.ApprovalPolicy{}, 0, Approve, eventlog.JSON(`null`), signals.ErrInvalidEdit},
		{"too large", signals.ApprovalPolicy{}, 0, Approve,
			eventlog.JSON(`{"a":"` + strings.Repeat("x", signals.MaxDecisionBytes) + `"}`), signals.ErrInvalidEdit},
		{"a rules-4 run", signals.ApprovalPolicy{}, Rules4, Approve, obj, signals.ErrInvalidEdit},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := waitingFor(t, tc.pol, `{"to":"y"}`, func(c *Config) { c.Rules = tc.rules })
			dec := signals.Decision{ID: "d1", CallID: "c0", Decider: "alice", Args: tc.args}
			require.ErrorIs(t, d.l.CheckDecision(tc.verdict, dec), tc.want)
			require.ErrorIs(t, d.step(Decide{Verdict: tc.verdict, Decision: dec}).Err, tc.want)
			require.Empty(t, only[eventlog.DecisionMade](d.events()), "nothing recorded")
			require.Empty(t, inFlight[StartTool](d), "nothing runs")
			require.Len(t, d.l.Status().Pending, 1, "the call still waits")
			if tc.verdict == Approve {
				dec.Args = ""
				require.NoError(t, d.step(Decide{Verdict: Approve, Decision: dec}).Err, "approving it as made still works")
				require.Len(t, inFlight[StartTool](d), 1)
			}
			d.requireOK()
		})
	}
}

func TestAPolicyForbiddingEditsOfOneToolAllowsThemForOthers(t *testing.T) {
	p := &signals.ApprovalPolicy{NoEdit: []string{"pay", "mcp:bank"}}
	require.False(t, p.EditsAllowed("pay", "", ""))
	require.True(t, p.EditsAllowed("mail", "", ""))
	require.False(t, p.EditsAllowed("bank__send", "bank", "send"), "an MCP server's grant covers its tools")
	require.True(t, p.EditsAllowed("shop__buy", "shop", "buy"))
	require.True(t, (*signals.ApprovalPolicy)(nil).EditsAllowed("pay", "", ""), "no policy: edits allowed")
}

func TestWaitingCallNamesTheCallAPersonMayEdit(t *testing.T) {
	d := waitingFor(t, signals.ApprovalPolicy{}, `{"to":"y"}`)
	c, schema, ok := d.l.WaitingCall("c0")
	require.True(t, ok)
	require.Equal(t, "t", c.Name)
	require.Nil(t, schema, "a worker tool's schema is the worker's")
	_, _, ok = d.l.WaitingCall("c9")
	require.False(t, ok)
}
