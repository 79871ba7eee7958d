package console

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

func tokenOf(t *testing.T, ev sse) tokenData {
	t.Helper()
	var d tokenData
	require.NoError(t, json.Unmarshal([]byte(ev.Data), &d))
	return d
}

func blockOf(t *testing.T, ev sse) (id, html string) {
	t.Helper()
	var d struct{ ID, HTML string }
	require.NoError(t, json.Unmarshal([]byte(ev.Data), &d))
	return d.ID, d.HTML
}

const words = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"

func TestEventsStreamTheTokensOfTheCallInFlightThenItsMessage(t *testing.T) {
	e := newEnv(t, envOptions{wordDelay: 60 * time.Millisecond})
	ctx := ctxT(t, time.Minute)
	e.create(ctx, "talker", "/say "+words, signals.AgentOptions{})
	events := e.stream(ctx, "talker", nil, "?from=0")

	var text strings.Builder
	chunks := 0
	got := until(t, ctx, events, func(ev sse) bool {
		if ev.Event == "token" {
			d := tokenOf(t, ev)
			if d.Replace {
				text.Reset()
			}
			text.WriteString(d.Text)
			chunks++
		}
		return ev.Event == "token" && strings.Contains(text.String(), "five")
	})
	require.Greater(t, chunks, 1, "tokens arrive one by one: %v", kindsOf(got))

	late := e.stream(ctx, "talker", nil, "?from=0")
	first := until(t, ctx, late, func(ev sse) bool { return ev.Event == "token" })
	d := tokenOf(t, first[len(first)-1])
	require.True(t, d.Replace, "a viewer arriving mid-call gets the call so far")
	require.True(t, strings.HasPrefix(d.Text, "one two three four five"), "from its first token: %q", d.Text)

	until(t, ctx, events, func(ev sse) bool {
		if ev.Event == "token" {
			d := tokenOf(t, ev)
			if d.Replace {
				text.Reset()
			}
			text.WriteString(d.Text)
		}
		if ev.Event != "block" {
			return false
		}
		_, html := blockOf(t, ev)
		return strings.Contains(html, "<p>"+words+"</p>")
	})
	require.Equal(t, words, text.String(), "every token arrived, in order")
}

func TestEventsResumeFromTheLastEventIDWithoutLosingAnything(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, time.Minute)
	h := e.idle(ctx, "resume", "/say first", signals.AgentOptions{})
	st, err := h.Status(ctx)
	require.NoError(t, err)
	end := st.LogLen - 1

	mid := e.stream(ctx, "resume", map[string]string{"Last-Event-ID": "3"}, "")
	got := until(t, ctx, mid, func(ev sse) bool { return ev.Event == "status" })
	// Turn 1 last changed at the status event after its end (its end
	// moves there: "as of its end"), the log's last event.
	require.Equal(t, []string{"block#" + strconv.FormatInt(end, 10), "status#" + strconv.FormatInt(end, 10)}, kindsOf(got),
		"the turn that changed after seq 3, then the position")
	id, html := blockOf(t, got[0])
	require.Equal(t, "turn-1", id)
	require.Contains(t, html, "first")

	caughtUp := e.stream(ctx, "resume", map[string]string{"Last-Event-ID": strconv.FormatInt(end, 10)}, "?from=0")
	got = until(t, ctx, caughtUp, func(ev sse) bool { return ev.Event == "status" })
	require.Equal(t, []string{"status#" + strconv.FormatInt(end, 10)}, kindsOf(got), "Last-Event-ID wins over ?from")

	_, err = h.Followup(ctx, "/say second", agent.Acknowledged())
	require.NoError(t, err)
	last := int64(-1)
	got = until(t, ctx, caughtUp, func(ev sse) bool {
		if ev.ID != "" {
			n, err := strconv.ParseInt(ev.ID, 10, 64)
			require.NoError(t, err)
			require.GreaterOrEqual(t, n, last, "positions never go back")
			last = n
		}
		if ev.Event != "block" {
			return false
		}
		id, html := blockOf(t, ev)
		return id == "turn-2" && strings.Contains(html, "end-completed")
	})
	require.NotContains(t, kindsOf(got), "block#"+strconv.FormatInt(end, 10), "turn 1 is not sent again")
}

func TestEventsOfAnAgentThatEndsSayClosedAndStop(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, time.Minute)
	h := e.idle(ctx, "ending", "/say soon gone", signals.AgentOptions{})
	events := e.stream(ctx, "ending", nil, "?from=0")
	until(t, ctx, events, func(ev sse) bool { return ev.Event == "status" })
	require.NoError(t, h.Dispose(ctx, "bye"))
	until(t, ctx, events, func(ev sse) bool { return ev.Event == "closed" })
	_, open := <-events
	require.False(t, open, "the stream ends")

	after := e.stream(ctx, "ending", nil, "?from=0")
	got := until(t, ctx, after, func(ev sse) bool { return ev.Event == "closed" })
	require.Equal(t, []string{"closed#"}, kindsOf(got))
}

func TestEventsRefuseABadPositionAndAMissingAgent(t *testing.T) {
	e := newEnv(t, envOptions{noWorker: true})
	ctx := ctxT(t, time.Minute)
	e.create(ctx, "here", "", signals.AgentOptions{})
	sse := map[string]string{"Accept": "text/event-stream"}
	r := e.do(http.MethodGet, "/agents/here/events?from=-1", nil, sse, nil)
	require.Equal(t, http.StatusBadRequest, r.Status)
	sse["Last-Event-ID"] = "abc"
	r = e.do(http.MethodGet, "/agents/here/events", nil, sse, nil)
	require.Equal(t, http.StatusBadRequest, r.Status)
	delete(sse, "Last-Event-ID")
	r = e.do(http.MethodGet, "/agents/nobody/events", nil, sse, nil)
	require.Equal(t, http.StatusNotFound, r.Status)
	require.Equal(t, "not_found", r.JSON(t)["code"])
}

func TestOneFeedFollowsAnAgentForAllItsViewers(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, time.Minute)
	e.idle(ctx, "shared", "/say hi", signals.AgentOptions{})
	c1, stop1 := context.WithCancel(ctx)
	c2, stop2 := context.WithCancel(ctx)
	until(t, ctx, e.stream(c1, "shared", nil, ""), func(ev sse) bool { return ev.Event == "status" })
	until(t, ctx, e.stream(c2, "shared", nil, ""), func(ev sse) bool { return ev.Event == "status" })
	feeds := func() (n, refs int) {
		e.srv.feeds.mu.Lock()
		defer e.srv.feeds.mu.Unlock()
		for _, f := range e.srv.feeds.m {
			n, refs = n+1, refs+f.refs
		}
		return n, refs
	}
	n, refs := feeds()
	require.Equal(t, 1, n)
	require.Equal(t, 2, refs)
	stop1()
	stop2()
	require.Eventually(t, func() bool { n, _ := feeds(); return n == 0 }, 10*time.Second, 10*time.Millisecond,
		"the feed stops with its last viewer")
}

func TestWatchingAnAgentWritesNothingToItsHistory(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, time.Minute)
	h := e.idle(ctx, "watched", "/say look but do not touch", signals.AgentOptions{})
	// Idle shows in a query before the workflow task that records it
	// (the status upsert) completes: wait for a history that ends there.
	var before []*historypb.HistoryEvent
	require.Eventually(t, func() bool {
		var err error
		before, err = projection.Fetch(ctx, e.c, h.ID, "")
		return err == nil && len(before) > 0 &&
			before[len(before)-1].GetEventType() == enumspb.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES
	}, 10*time.Second, 20*time.Millisecond)

	require.Equal(t, http.StatusOK, e.get("/agents/watched").Status)
	require.Equal(t, http.StatusOK, e.get("/agents?prefix=watched").Status)
	sctx, stop := context.WithCancel(ctx)
	until(t, ctx, e.stream(sctx, "watched", nil, "?from=0"), func(ev sse) bool { return ev.Event == "status" })
	stop()

	after, err := projection.Fetch(ctx, e.c, h.ID, "")
	require.NoError(t, err)
	require.Len(t, after, len(before))
}
