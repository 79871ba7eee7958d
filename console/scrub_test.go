package console

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

func TestTheReplayScrubberShowsTheSessionAsItWasReadOnly(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, time.Minute)
	h := e.idle(ctx, "replayed", "/say first answer", signals.AgentOptions{})
	_, err := h.Followup(ctx, "/say second answer")
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	log, err := h.Log(ctx)
	require.NoError(t, err)
	auth := map[string]string{"Authorization": "Bearer " + testToken}
	get := func(q string) response { return e.do(http.MethodGet, "/agents/replayed"+q, nil, auth, nil) }
	seqOf := func(match func(eventlog.Event) bool) int64 {
		for _, env := range log {
			if ev, err := eventlog.Decode(env); err == nil && match(ev) {
				return env.Seq
			}
		}
		t.Fatal("no such event")
		return 0
	}
	end1 := seqOf(func(ev eventlog.Event) bool { te, ok := ev.(eventlog.TurnEnd); return ok && te.Turn == 1 })
	queued := seqOf(func(ev eventlog.Event) bool {
		in, ok := ev.(eventlog.InboxInserted)
		return ok && in.Content == "/say second answer"
	})
	last := log[len(log)-1].Seq

	// The live page offers the scrubber at the log's end, and its actions.
	live := get("")
	require.Equal(t, http.StatusOK, live.Status)
	require.Contains(t, live.Body, `<input type="range" name="at" min="0" max="`+strconv.FormatInt(last, 10)+`" value="`+strconv.FormatInt(last, 10)+`"`)
	require.Contains(t, live.Body, `id="message-form"`)
	require.NotContains(t, live.Body, `id="scrubbed"`)

	// At the end of turn 1: its answer, not turn 2's, and nothing to act on.
	r := get("?at=" + strconv.FormatInt(end1, 10))
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	require.Contains(t, r.Body, "first answer")
	require.NotContains(t, r.Body, "second answer")
	require.NotContains(t, r.Body, `id="turn-2"`)
	require.Contains(t, r.Body, `id="scrubbed"`)
	require.Contains(t, r.Body, "as of log event "+strconv.FormatInt(end1, 10)+" of "+strconv.FormatInt(last, 10))
	require.Contains(t, r.Body, `data-live="false"`, "a past position is not followed live")
	for _, form := range []string{`id="message-form"`, `id="cancel-form"`, `form class="decide"`} {
		require.NotContains(t, r.Body, form, "read-only")
	}
	require.Contains(t, r.Body, `<span class="chip running" id="status-chip">running</span>`, "turn 1 ended, its status not yet idle")
	require.Contains(t, r.Body, `<span>turn 1</span>`)

	// When the followup was queued: in the next-turn inbox, not answered.
	r = get("?at=" + strconv.FormatInt(queued, 10))
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	require.Contains(t, r.Body, `<span class="count">1</span>`)
	require.Contains(t, r.Body, "/say second answer")
	require.NotContains(t, r.Body, `id="turn-2"`)

	// At the last event it is the whole session, still read-only.
	r = get("?at=" + strconv.FormatInt(last, 10))
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	require.Contains(t, r.Body, `id="turn-2"`)
	require.Contains(t, r.Body, `<span class="chip idle" id="status-chip">idle</span>`)
	require.NotContains(t, r.Body, `id="message-form"`)

	// Positions that are not in the log are refused, with the range.
	for _, bad := range []string{"-1", strconv.FormatInt(last+1, 10), "x", "", "1.5", "99999999999999999999"} {
		r := e.do(http.MethodGet, "/agents/replayed?at="+bad, nil, map[string]string{"Accept": "application/json"}, nil)
		require.Equal(t, http.StatusBadRequest, r.Status, bad)
		require.Equal(t, "bad_input", r.JSON(t)["code"], bad)
		require.Contains(t, r.JSON(t)["error"], "at must be a log position from 0 to "+strconv.FormatInt(last, 10), bad)
	}
	r = e.do(http.MethodGet, "/agents/replayed?at=1&at=2", nil, map[string]string{"Accept": "application/json"}, nil)
	require.Equal(t, http.StatusBadRequest, r.Status)
}
