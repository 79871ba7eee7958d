package console

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// pending waits until h's turn waits for a person and returns the call.
func pending(t *testing.T, ctx context.Context, h *agent.Handle) signals.PendingView {
	t.Helper()
	var p signals.PendingView
	require.Eventually(t, func() bool {
		st, err := h.Status(ctx)
		if err != nil || len(st.Pending) == 0 {
			return false
		}
		p = st.Pending[0]
		return true
	}, 30*time.Second, 20*time.Millisecond, "no call waits for a person")
	return p
}

// approvalAgent starts an agent whose echo call waits for approval.
func (e *env) approvalAgent(ctx context.Context, id, text string) (*agent.Handle, signals.PendingView) {
	e.t.Helper()
	h := e.create(ctx, id, `/tool echo {"text":"`+text+`"}`, signals.AgentOptions{Tools: []string{"echo"},
		Approval: &signals.ApprovalPolicy{Tools: []string{"echo"}}})
	return h, pending(e.t, ctx, h)
}

// toolResult returns the result of call in h's log once it is there.
func toolResult(t *testing.T, ctx context.Context, h *agent.Handle, call string) eventlog.ToolResult {
	t.Helper()
	_, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	log, err := h.Log(ctx)
	require.NoError(t, err)
	for _, env := range log {
		e, err := eventlog.Decode(env)
		require.NoError(t, err)
		if r, ok := e.(eventlog.ToolResult); ok && r.CallID == call {
			return r
		}
	}
	t.Fatalf("no result of %s", call)
	return eventlog.ToolResult{}
}

// decisionMade returns the decision on call in h's log.
func decisionMade(t *testing.T, ctx context.Context, h *agent.Handle, call string) eventlog.DecisionMade {
	t.Helper()
	log, err := h.Log(ctx)
	require.NoError(t, err)
	for _, env := range log {
		e, err := eventlog.Decode(env)
		require.NoError(t, err)
		if d, ok := e.(eventlog.DecisionMade); ok && d.CallID == call {
			return d
		}
	}
	t.Fatalf("no decision on %s", call)
	return eventlog.DecisionMade{}
}

func section(t *testing.T, body, id string) string {
	t.Helper()
	i := strings.Index(body, `id="`+id+`"`)
	require.Positive(t, i, "the page has #%s", id)
	return body[i:]
}

func TestAnApprovalCardShowsTheToolItsArgumentsAndTheWaitAndApprovingRunsTheCall(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, time.Minute)
	h, p := e.approvalAgent(ctx, "asks", "send it")

	card := section(t, e.get("/agents/asks").Body, "pending-"+p.CallID)
	card = card[:strings.Index(card, "</article>")]
	require.Contains(t, card, `<b class="tool">echo</b>`)
	require.Contains(t, card, `<pre class="args" aria-label="arguments">{&#34;text&#34;:&#34;send it&#34;}</pre>`)
	require.Contains(t, card, `data-since="`+p.Since.UTC().Format(time.RFC3339)+`"`, "the card says since when it waits")
	require.Contains(t, card, "waiting <time")
	anon := e.do(http.MethodGet, "/agents/asks", nil, map[string]string{"Authorization": "Bearer not-the-token"}, nil)
	require.Equal(t, http.StatusSeeOther, anon.Status, "a reader without the token or a session is sent to log in")

	r := e.act("/agents/asks/approve", url.Values{"call_id": {p.CallID}, "text": {"looks right"}})
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	require.Equal(t, p.CallID, r.JSON(t)["call_id"])
	require.Equal(t, "echo: send it", toolResult(t, ctx, h, p.CallID).Content)
	made := decisionMade(t, ctx, h, p.CallID)
	require.Equal(t, eventlog.DecisionMade{CallID: p.CallID, Approved: true, Decider: "console", Text: "looks right"}, made)
	require.NotContains(t, e.get("/agents/asks").Body, `id="pending-`, "a decided call leaves no card")

	again := e.act("/agents/asks/approve", url.Values{"call_id": {p.CallID}})
	require.Equal(t, http.StatusConflict, again.Status, again.Body)
	require.Equal(t, "no_such_decision", again.JSON(t)["code"], "an already decided call")
}

func TestAnOperatorsPageCarriesTheDecisionFormWithItsSessionToken(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, time.Minute)
	_, p := e.approvalAgent(ctx, "formed", "x")
	jar, csrf := e.login()
	page := e.do(http.MethodGet, "/agents/formed", nil, nil, jar)
	card := section(t, page.Body, "pending-"+p.CallID)
	card = card[:strings.Index(card, "</article>")]
	require.Contains(t, card, `action="/agents/formed/approve"`)
	require.Contains(t, card, `formaction="/agents/formed/deny"`)
	require.Contains(t, card, `name="csrf" value="`+csrf+`"`)
	require.Contains(t, card, `name="call_id" value="`+p.CallID+`"`)

	r := e.do(http.MethodPost, "/agents/formed/deny", url.Values{"csrf": {csrf}, "call_id": {p.CallID}, "text": {"not today"}}, nil, jar)
	require.Equal(t, http.StatusSeeOther, r.Status, "a form without script is sent back to the page")
	require.Equal(t, "/agents/formed?done=deny", r.Header.Get("Location"))
}

func TestADenialNeedsABoundedReasonWhichTheModelReads(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, time.Minute)
	h, p := e.approvalAgent(ctx, "denied", "rm -rf")
	for _, tc := range []struct {
		name, text string
		status     int
		code       string
	}{
		{"empty", "  ", http.StatusBadRequest, "bad_input"},
		{"oversized", strings.Repeat("n", signals.MaxDecisionBytes+1), http.StatusRequestEntityTooLarge, "message_too_large"},
		{"unknown call", "no", http.StatusConflict, "no_such_decision"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			call := p.CallID
			if tc.name == "unknown call" {
				call = "no-such-call"
			}
			r := e.act("/agents/denied/deny", url.Values{"call_id": {call}, "text": {tc.text}})
			require.Equal(t, tc.status, r.Status, r.Body)
			require.Equal(t, tc.code, r.JSON(t)["code"])
		})
	}
	st, err := h.Status(ctx)
	require.NoError(t, err)
	require.Len(t, st.Pending, 1, "no refused denial decided the call")

	r := e.act("/agents/denied/deny", url.Values{"call_id": {p.CallID}, "text": {"never on prod"}})
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	res := toolResult(t, ctx, h, p.CallID)
	require.True(t, res.IsError)
	require.Contains(t, res.Content, "never on prod")
	require.Equal(t, "console", decisionMade(t, ctx, h, p.CallID).Decider)
}

func TestAQuestionIsAnsweredFromItsCardAndAnAnswerWithoutOneIsRefused(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, time.Minute)
	h := e.create(ctx, "curious", `/tool ask_human {"question":"which colour?"}`, signals.AgentOptions{Tools: []string{signals.AskHumanTool}})
	p := pending(t, ctx, h)
	require.Equal(t, eventlog.NeedAnswer, p.Kind)
	card := section(t, e.get("/agents/curious").Body, "pending-"+p.CallID)
	require.Contains(t, card[:strings.Index(card, "</article>")], "which colour?")
	require.Contains(t, card, `<span class="tag">question</span>`)

	empty := e.act("/agents/curious/answer", url.Values{"call_id": {p.CallID}, "text": {""}})
	require.Equal(t, http.StatusBadRequest, empty.Status, empty.Body)
	require.Equal(t, "empty_message", empty.JSON(t)["code"])
	r := e.act("/agents/curious/answer", url.Values{"call_id": {p.CallID}, "text": {"teal"}})
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	require.Equal(t, "answer", r.JSON(t)["done"])
	require.Contains(t, toolResult(t, ctx, h, p.CallID).Content, "teal")
	require.Equal(t, "console", decisionMade(t, ctx, h, p.CallID).Decider)

	none := e.act("/agents/curious/answer", url.Values{"call_id": {p.CallID}, "text": {"again"}})
	require.Equal(t, http.StatusConflict, none.Status, none.Body)
	require.Equal(t, "no_such_decision", none.JSON(t)["code"], "no question is pending any more")
	missing := e.act("/agents/nobody/answer", url.Values{"call_id": {"c1"}, "text": {"hi"}})
	require.Equal(t, http.StatusNotFound, missing.Status, missing.Body)
	require.Equal(t, "not_found", missing.JSON(t)["code"])
}

func TestAReadOnlyConsoleShowsCardsButRefusesDecisions(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, time.Minute)
	h := e.create(ctx, "watched", `/tool echo {"text":"x"}`, signals.AgentOptions{Tools: []string{"echo"},
		Approval: &signals.ApprovalPolicy{Tools: []string{"echo"}, Timeout: time.Hour}})
	p := pending(t, ctx, h)
	card := section(t, e.get("/agents/watched").Body, "pending-"+p.CallID)
	card = card[:strings.Index(card, "</article>")]
	require.NotContains(t, card, "<form")
	require.Contains(t, card, "decided by policy at "+p.Deadline.UTC().Format("2006-01-02 15:04:05 UTC"))
	for _, what := range []string{"approve", "deny", "answer"} {
		r := e.act("/agents/watched/"+what, url.Values{"call_id": {p.CallID}, "text": {"x"}})
		require.Equal(t, http.StatusForbidden, r.Status, r.Body)
		require.Equal(t, "read_only", r.JSON(t)["code"])
	}
	st, err := h.Status(ctx)
	require.NoError(t, err)
	require.Len(t, st.Pending, 1)
}

func TestTheListFiltersAgentsWaitingForApprovalOrATimerAndShowsUntilWhen(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, time.Minute)
	e.approvalAgent(ctx, "approver", "x")
	sleeper := e.create(ctx, "sleeper", `/tool wait {"seconds":600}`, signals.AgentOptions{Tools: []string{signals.WaitTool}})
	var until time.Time
	require.Eventually(t, func() bool {
		st, err := sleeper.Status(ctx)
		if err != nil || len(st.Waits) == 0 {
			return false
		}
		until = st.Waits[0].Until
		return true
	}, 30*time.Second, 20*time.Millisecond)
	e.idle(ctx, "free", "/say hi", signals.AgentOptions{})

	e.listed(t, ctx, "/agents?waiting=approval", "approver")
	r := e.listed(t, ctx, "/agents?waiting=wait", "sleeper")
	require.Contains(t, r.Body, `<span class="chip wait">wait</span>`)
	require.Contains(t, r.Body, `until <time datetime="`+until.UTC().Format(time.RFC3339)+`"`)
	e.listed(t, ctx, "/agents?waiting=any", "approver", "sleeper")
	after := url.QueryEscape(until.Add(time.Minute).UTC().Format(time.RFC3339))
	before := url.QueryEscape(until.Add(-time.Minute).UTC().Format(time.RFC3339))
	e.listed(t, ctx, "/agents?until="+after, "sleeper")
	e.listed(t, ctx, "/agents?until="+before)

	page := e.get("/agents/sleeper")
	waits := section(t, page.Body, "waits")
	require.Contains(t, waits[:strings.Index(waits, "</ul>")], "until <time datetime=\""+until.UTC().Format(time.RFC3339)+"\"")

	bad := e.get("/agents?waiting=soon")
	require.Equal(t, http.StatusBadRequest, bad.Status)
	require.Contains(t, bad.Body, "want approval, answer, wait or any")
}

func TestTheTreeListsChildrenWithTheirReportsAndLinksBothWaysLiveAndOnResume(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, time.Minute)
	h := e.idle(ctx, "boss", `/tool spawn_agent {"task":"/say done by the child","mode":"wait"}`,
		signals.AgentOptions{Tools: []string{signals.SpawnTool}})
	log, err := h.Log(ctx)
	require.NoError(t, err)
	var child string
	for _, env := range log {
		ev, err := eventlog.Decode(env)
		require.NoError(t, err)
		if c, ok := ev.(eventlog.ChildStarted); ok {
			child = c.ChildID
		}
	}
	require.NotEmpty(t, child)

	var kids string
	require.Eventually(t, func() bool { // the child's status comes from visibility
		kids = section(t, e.get("/agents/boss").Body, "children")
		kids = kids[:strings.Index(kids, "</ul>")]
		return !strings.Contains(kids, "starting")
	}, 20*time.Second, 50*time.Millisecond)
	require.Contains(t, kids, `<a href="/agents/`+url.PathEscape(child)+`">`+child+`</a>`)
	require.Contains(t, kids, "wait · turn 1 · 1 reported")
	require.Regexp(t, `\d+ in · \d+ out`, kids, "the child's usage, as its report counted it")

	childPage := e.get("/agents/" + url.PathEscape(child))
	require.Contains(t, section(t, childPage.Body, "tree"), `<a href="/agents/boss" id="parent-link">boss</a>`)

	// A page resuming from the end of the log gets the tree in its first
	// status frame.
	events := e.stream(ctx, "boss", map[string]string{"Last-Event-ID": strconv.FormatInt(log[len(log)-1].Seq, 10)}, "")
	got := until(t, ctx, events, func(ev sse) bool { return ev.Event == "status" })
	var st struct{ HTML string }
	require.NoError(t, json.Unmarshal([]byte(got[len(got)-1].Data), &st))
	require.Contains(t, st.HTML, `data-child="`+child+`"`)
}

func TestACardArrivesLiveAndLeavesWhenTheCallIsDecided(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, time.Minute)
	h := e.create(ctx, "live-card", "/say first", signals.AgentOptions{Tools: []string{"echo"},
		Approval: &signals.ApprovalPolicy{Tools: []string{"echo"}}})
	_, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	events := e.stream(ctx, "live-card", nil, "?from=0")
	until(t, ctx, events, func(ev sse) bool { return ev.Event == "status" })

	_, err = h.Followup(ctx, `/tool echo {"text":"live"}`)
	require.NoError(t, err)
	var html string
	until(t, ctx, events, func(ev sse) bool {
		var st struct{ HTML string }
		require.NoError(t, json.Unmarshal([]byte(ev.Data), &st))
		html = st.HTML
		return ev.Event == "status" && strings.Contains(html, `class="card pending"`)
	})
	require.Contains(t, html, `<form method="post" action="/agents/live-card/approve"`, "the feed's card has the form")
	require.Contains(t, html, `name="csrf" value=""`, "with no session's token: the page fills in its own")
	p := pending(t, ctx, h)
	require.Equal(t, http.StatusOK, e.act("/agents/live-card/approve", url.Values{"call_id": {p.CallID}}).Status)
	until(t, ctx, events, func(ev sse) bool {
		var st struct{ HTML string }
		require.NoError(t, json.Unmarshal([]byte(ev.Data), &st))
		return ev.Event == "status" && !strings.Contains(st.HTML, `class="card pending"`)
	})
}

func TestAChildsChipIsTheFirstWordOfItsStatus(t *testing.T) {
	for status, chip := range map[string]string{"": "unknown", "running": "running",
		"disposed: answered its parent": "disposed", "failed": "failed"} {
		require.Equal(t, chip, (&treeNode{Status: status}).Chip(), status)
	}
}
