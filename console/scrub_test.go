package console

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// seqOf is the position of the first event of h's log that match says.
func seqOf(t *testing.T, ctx context.Context, h *agent.Handle, match func(eventlog.Event) bool) int64 {
	t.Helper()
	log, err := h.Log(ctx)
	require.NoError(t, err)
	for _, env := range log {
		e, err := eventlog.Decode(env)
		require.NoError(t, err)
		if match(e) {
			return env.Seq
		}
	}
	t.Fatal("no such event in the log")
	return 0
}

// noActions fails if body carries any form that acts on the agent (the
// fork form starts another agent, and leaves this one as it is).
func noActions(t *testing.T, body string) {
	t.Helper()
	if i := strings.Index(body, `<form method="post" action="/agents/`); i >= 0 && strings.Contains(body[i:], `data-act="fork"`) {
		j := strings.Index(body[i:], "</form>")
		if strings.Contains(body[i:i+j], `id="fork-form"`) {
			body = body[:i] + body[i+j:]
		}
	}
	for _, form := range []string{`id="message-form"`, `id="cancel-form"`, `id="model-form"`, `id="dispose-form"`, `class="decide"`, `data-act=`} {
		require.NotContains(t, body, form)
	}
}

// operatorGet reads path as the operator, who would get the action forms.
func (e *env) operatorGet(path string) response {
	return e.do(http.MethodGet, path, nil, map[string]string{"Authorization": "Bearer " + testToken}, nil)
}

func TestScrubbingToTheEndOfATurnShowsOnlyWhatHadHappenedByThenReadOnly(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, time.Minute)
	h := e.idle(ctx, "replayed", "/say first answer", signals.AgentOptions{})
	_, err := h.Followup(ctx, "/say second answer", agent.Acknowledged())
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	// Turn 1's end is where the agent settled after it: the status event
	// (idle) that follows turn/end.
	end1 := 1 + seqOf(t, ctx, h, func(e eventlog.Event) bool { te, ok := e.(eventlog.TurnEnd); return ok && te.Turn == 1 })

	live := e.operatorGet("/agents/replayed")
	require.Contains(t, live.Body, `id="turn-2"`)
	require.Contains(t, live.Body, `id="message-form"`, "the live page acts")
	require.Contains(t, live.Body, fmt.Sprintf(`<a class="asof" href="?at=%d"`, end1), "turn 1 links to its end")
	require.Contains(t, live.Body, `<input type="range" id="scrub-at" name="at" min="0"`)
	require.NotContains(t, live.Body, `id="scrubbed"`)

	r := e.operatorGet(fmt.Sprintf("/agents/replayed?at=%d", end1))
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	require.Contains(t, r.Body, `id="turn-1"`)
	require.Contains(t, r.Body, "first answer")
	require.NotContains(t, r.Body, `id="turn-2"`, "turn 2 had not started")
	require.NotContains(t, r.Body, "second answer")
	require.Contains(t, r.Body, fmt.Sprintf("Viewing the session as of seq %d, <time", end1))
	require.Contains(t, r.Body, `<a href="/agents/replayed" id="back-to-live">back to live</a>`)
	require.Contains(t, r.Body, fmt.Sprintf(`value="%d"`, end1), "the scrubber stands at the position")
	require.Contains(t, r.Body, `data-live="false"`, "no live feed or token stream")
	require.Contains(t, r.Body, fmt.Sprintf("%d log events", end1+1), "the status is the prefix's")
	require.Contains(t, r.Body, `<span class="chip idle" id="status-chip">idle</span>`, "as the agent was once turn 1 ended")
	require.Contains(t, r.Body, `id="scrub-readonly"`)
	noActions(t, r.Body)
}

func TestScrubbingBackShowsAnApprovalAsPendingBeforeItWasDecided(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, time.Minute)
	h, p := e.approvalAgent(ctx, "decided", "ship it")
	require.Equal(t, http.StatusOK, e.act("/agents/decided/approve", url.Values{"call_id": {p.CallID}}).Status)
	toolResult(t, ctx, h, p.CallID)
	asked := seqOf(t, ctx, h, func(e eventlog.Event) bool { _, ok := e.(eventlog.DecisionRequested); return ok })
	made := seqOf(t, ctx, h, func(e eventlog.Event) bool { _, ok := e.(eventlog.DecisionMade); return ok })

	require.NotContains(t, e.get("/agents/decided").Body, `id="pending-`, "decided now")
	r := e.operatorGet(fmt.Sprintf("/agents/decided?at=%d", asked))
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	card := section(t, r.Body, "pending-"+p.CallID)
	card = card[:strings.Index(card, "</article>")]
	require.Contains(t, card, `<b class="tool">echo</b>`)
	require.Contains(t, card, "waiting since <time")
	require.NotContains(t, card, "<form", "no decision form on a past position")
	noActions(t, r.Body)

	after := e.get(fmt.Sprintf("/agents/decided?at=%d", made))
	require.Equal(t, http.StatusOK, after.Status, after.Body)
	require.NotContains(t, after.Body, `id="pending-`, "decided by then")
	require.Contains(t, after.Body, "approved")
}

func TestAScrubPositionOutsideTheLogOrNotANumberIsRefused(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, time.Minute)
	h := e.idle(ctx, "bounded", "/say hi", signals.AgentOptions{})
	log, err := h.Log(ctx)
	require.NoError(t, err)
	last := len(log) - 1
	want := fmt.Sprintf("want a log position from 0 to %d", last)

	for _, at := range []string{"-1", strings.Repeat("9", 30), fmt.Sprint(last + 1), "abc", "1.5", "0x1", " 1"} {
		r := e.do(http.MethodGet, "/agents/bounded?at="+url.QueryEscape(at), nil, map[string]string{"Accept": "application/json"}, nil)
		require.Equal(t, http.StatusBadRequest, r.Status, at)
		require.Equal(t, "bad_input", r.JSON(t)["code"], at)
		require.Contains(t, r.JSON(t)["error"], want, at)
	}
	page := e.get("/agents/bounded?at=-1")
	require.Equal(t, http.StatusBadRequest, page.Status)
	require.Contains(t, page.Body, want, "a browser gets the reason on a page")

	for _, at := range []int{0, last} {
		r := e.get(fmt.Sprintf("/agents/bounded?at=%d", at))
		require.Equal(t, http.StatusOK, r.Status, r.Body)
		require.Contains(t, r.Body, fmt.Sprintf("Viewing the session as of seq %d,", at))
	}
	require.NotContains(t, e.get("/agents/bounded?at=0").Body, `id="turn-1"`, "seq 0 is the first message, before any turn")
}

func TestAnEmptyLogHasNoPositionToScrubTo(t *testing.T) {
	_, _, err := parseAt("0", 0, 0)
	require.ErrorIs(t, err, errBadInput)
	require.ErrorContains(t, err, "the log is empty")
	at, scrubbed, err := parseAt("", 0, 0)
	require.NoError(t, err)
	require.False(t, scrubbed)
	require.Zero(t, at)
}
