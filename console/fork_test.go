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

// twoTurns is an agent that answered "first answer" then "second answer";
// it returns the position where turn 1 settled (a turn boundary).
func (e *env) twoTurns(ctx context.Context, id string) (*agent.Handle, int64) {
	e.t.Helper()
	h := e.idle(ctx, id, "/say first answer", signals.AgentOptions{})
	_, err := h.Followup(ctx, "/say second answer", agent.Acknowledged())
	require.NoError(e.t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(e.t, err)
	return h, 1 + seqOf(e.t, ctx, h, func(e eventlog.Event) bool { te, ok := e.(eventlog.TurnEnd); return ok && te.Turn == 1 })
}

// logLen is how many events h's log holds.
func logLen(t *testing.T, ctx context.Context, h *agent.Handle) int {
	t.Helper()
	log, err := h.Log(ctx)
	require.NoError(t, err)
	return len(log)
}

func TestForkingFromAScrubbedPositionOpensTheForkWhichNamesItsSourceAndLeavesTheSourceAsItWas(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, 2*time.Minute)
	src, end1 := e.twoTurns(ctx, "source")
	before := logLen(t, ctx, src)

	require.NotContains(t, e.operatorGet("/agents/source").Body, `id="fork-form"`, "the live page forks nothing")
	page := e.operatorGet(fmt.Sprintf("/agents/source?at=%d", end1))
	require.Equal(t, http.StatusOK, page.Status, page.Body)
	form := section(t, page.Body, "fork-form")
	require.Contains(t, form, fmt.Sprintf(`<input type="hidden" name="at" value="%d">`, end1))
	require.Contains(t, form, `name="csrf"`)

	// A browser without script posts the form and is sent to the fork.
	jar, csrf := e.login()
	r := e.do(http.MethodPost, "/agents/source/fork", url.Values{"csrf": {csrf}, "at": {fmt.Sprint(end1)}, "new_id": {"forked"},
		"append": {"/say forked answer"}}, nil, jar)
	require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
	require.Equal(t, "/agents/forked?done=fork", r.Header.Get("Location"))
	f := e.attach(ctx, "forked")
	_, err := f.WaitIdle(ctx)
	require.NoError(t, err)

	fp := e.operatorGet("/agents/forked?done=fork")
	require.Equal(t, http.StatusOK, fp.Status, fp.Body)
	require.Contains(t, fp.Body, "done: fork")
	require.Contains(t, fp.Body, fmt.Sprintf(`Fork of <a href="/agents/source?at=%d" id="fork-source">source</a> at position %d`, end1, end1))
	require.Contains(t, fp.Body, `<a href="/diff?a=source&amp;b=forked" id="compare-source">`)
	require.Contains(t, fp.Body, fmt.Sprintf("forked from source at position %d", end1), "the log's session/forked shows")
	require.Contains(t, fp.Body, "forked answer")
	require.NotContains(t, fp.Body, "second answer", "what the source did after the fork point is not the fork's")
	require.Contains(t, fp.Body, fmt.Sprintf(`name="at" min="%d"`, end1+1), "the fork's own log begins after the fork point")

	// The fork's page scrubs over its own positions, its status folded
	// from its seed: at its first position it is the source's as of the
	// fork point plus session/forked.
	first := e.operatorGet(fmt.Sprintf("/agents/forked?at=%d", end1+1))
	require.Equal(t, http.StatusOK, first.Status, first.Body)
	require.Contains(t, first.Body, fmt.Sprintf("%d log events", end1+2))
	require.Contains(t, first.Body, `<span class="chip idle" id="status-chip">idle</span>`)
	require.NotContains(t, first.Body, "forked answer")
	refused := e.do(http.MethodGet, fmt.Sprintf("/agents/forked?at=%d", end1), nil, map[string]string{"Accept": "application/json"}, nil)
	require.Equal(t, http.StatusBadRequest, refused.Status)
	require.Contains(t, refused.JSON(t)["error"], fmt.Sprintf("want a log position from %d to", end1+1), "positions up to the fork point are the source's")

	// As JSON (the page's script), with a drawn ID; the source lists both.
	r = e.act("/agents/source/fork", url.Values{"at": {fmt.Sprint(end1)}, "replace_last": {"/say replaced"}})
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	got := r.JSON(t)
	drawn := got["id"].(string)
	require.Equal(t, "fork", got["done"])
	require.Equal(t, "/agents/"+drawn+"?done=fork", got["url"])
	require.Contains(t, e.operatorGet("/agents/"+url.PathEscape(drawn)).Body, "the last user message replaced")

	require.Equal(t, before, logLen(t, ctx, src), "forking wrote nothing to the source")
	deadline := time.Now().Add(30 * time.Second)
	for {
		body := e.operatorGet("/agents/source").Body
		if strings.Contains(body, `data-fork="forked"`) && strings.Contains(body, `data-fork="`+drawn+`"`) {
			require.Contains(t, body, `<a href="/diff?a=source&amp;b=forked">compare</a>`)
			break
		}
		require.True(t, time.Now().Before(deadline), "the source's page lists its forks (TetherForkOf)")
		time.Sleep(200 * time.Millisecond)
	}
}

func TestAClosedAgentForksFromTheConsole(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, 2*time.Minute)
	src, end1 := e.twoTurns(ctx, "ended")
	require.NoError(t, src.Dispose(ctx, "done"))
	require.Contains(t, e.operatorGet(fmt.Sprintf("/agents/ended?at=%d", end1)).Body, `id="fork-form"`)
	r := e.act("/agents/ended/fork", url.Values{"at": {fmt.Sprint(end1)}, "new_id": {"revived"}, "append": {"/say again"}})
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	f := e.attach(ctx, "revived")
	_, err := f.WaitIdle(ctx)
	require.NoError(t, err)
	require.Contains(t, e.operatorGet("/agents/revived").Body, "again")
}

func TestAForkTheLogOrTheSeedRulesRefuseSaysWhyAndMakesNothing(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, 2*time.Minute)
	src, end1 := e.twoTurns(ctx, "kept")
	before := logLen(t, ctx, src)
	torn := seqOf(t, ctx, src, func(e eventlog.Event) bool { _, ok := e.(eventlog.StepStart); return ok })
	long := strings.Repeat("x", maxAgentIDBytes+1)

	for i, c := range []struct {
		name   string
		form   url.Values
		status int
		code   string
		says   string
	}{
		{"inside a step", url.Values{"at": {fmt.Sprint(torn)}}, http.StatusConflict, "fork_position", "inside a step"},
		{"past the log", url.Values{"at": {fmt.Sprint(before)}}, http.StatusConflict, "fork_position", fmt.Sprintf("holds positions 0 to %d", before-1)},
		{"no position", url.Values{}, http.StatusBadRequest, "bad_input", "want a log position"},
		{"negative", url.Values{"at": {"-1"}}, http.StatusBadRequest, "bad_input", "want a log position"},
		{"not a number", url.Values{"at": {"1.5"}}, http.StatusBadRequest, "bad_input", "want a log position"},
		{"huge", url.Values{"at": {strings.Repeat("9", 40)}}, http.StatusBadRequest, "bad_input", "want a log position"},
		{"ID in use", url.Values{"at": {fmt.Sprint(end1)}, "new_id": {"kept"}}, http.StatusConflict, "already_exists", "kept"},
		{"ID too long", url.Values{"at": {fmt.Sprint(end1)}, "new_id": {long}}, http.StatusBadRequest, "bad_input", "at most"},
		{"ID with a control character", url.Values{"at": {fmt.Sprint(end1)}, "new_id": {"a\x01b"}}, http.StatusBadRequest, "bad_id", "not an agent ID"},
		{"blank message", url.Values{"at": {fmt.Sprint(end1)}, "append": {"  \n"}}, http.StatusBadRequest, "empty_message", "appended message"},
		{"blank replacement", url.Values{"at": {fmt.Sprint(end1)}, "replace_last": {" "}}, http.StatusBadRequest, "empty_message", "replacement"},
		{"bad UTF-8", url.Values{"at": {fmt.Sprint(end1)}, "replace_last": {"\xff\xfe"}}, http.StatusBadRequest, "invalid_utf8", "replacement"},
	} {
		if _, ok := c.form["new_id"]; !ok {
			c.form.Set("new_id", fmt.Sprintf("refused-%d", i))
		}
		r := e.act("/agents/kept/fork", c.form)
		require.Equal(t, c.status, r.Status, "%s: %s", c.name, r.Body)
		require.Equal(t, c.code, r.JSON(t)["code"], c.name)
		require.Contains(t, r.JSON(t)["error"], c.says, c.name)
		if strings.HasPrefix(c.form.Get("new_id"), "refused-") {
			_, err := e.c.DescribeWorkflowExecution(ctx, c.form.Get("new_id"), "")
			require.Error(t, err, "%s: no fork was started", c.name)
		}
	}
	r := e.act("/agents/kept/fork", url.Values{"at": {fmt.Sprint(torn)}})
	require.Contains(t, r.JSON(t)["error"], "nearest positions that can:", "the refusal names where a fork can be taken")

	// A browser gets the reason on a page; a stale form is refused.
	jar, _ := e.login()
	page := e.do(http.MethodPost, "/agents/kept/fork", url.Values{"csrf": {"stale"}, "at": {fmt.Sprint(end1)}}, nil, jar)
	require.Equal(t, http.StatusForbidden, page.Status)
	require.Contains(t, page.Body, "the form is stale")
	missing := e.act("/agents/nobody/fork", url.Values{"at": {"0"}})
	require.Equal(t, http.StatusNotFound, missing.Status, missing.Body)

	require.Equal(t, before, logLen(t, ctx, src), "the source is as it was")
	require.Equal(t, http.StatusOK, e.act("/agents/kept/message", url.Values{"kind": {"followup"}, "content": {"/say still here"}}).Status)
}

func TestTheDiffViewShowsTwoConversationsSideBySideFromWhereTheyPart(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, 2*time.Minute)
	src, end1 := e.twoTurns(ctx, "left")
	f, err := src.Fork(ctx, end1, agent.WithForkID("right"), agent.AppendMessage("/say other answer"))
	require.NoError(t, err)
	_, err = f.WaitIdle(ctx)
	require.NoError(t, err)

	r := e.operatorGet("/diff?a=left&b=right")
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	require.Contains(t, r.Body, fmt.Sprintf(`right is a fork of <a href="/agents/left">left</a> at position %d`, end1))
	la, err := src.Lineage(ctx)
	require.NoError(t, err)
	lb, err := f.Lineage(ctx)
	require.NoError(t, err)
	d := agent.Diverge(la.Conversation, lb.Conversation)
	require.Positive(t, d.Common)
	require.Contains(t, r.Body, fmt.Sprintf("The conversations are the same up to message %d of %d | %d; from there:",
		d.Common, len(la.Conversation), len(lb.Conversation)))
	rows := section(t, r.Body, "diff-rows")
	row := rows[strings.Index(rows, fmt.Sprintf(`<tr data-index="%d">`, d.Common)):]
	row = row[:strings.Index(row, "</tr>")]
	a, b := row[strings.Index(row, `<td class="a">`):strings.Index(row, `<td class="b">`)], row[strings.Index(row, `<td class="b">`):]
	require.Contains(t, a, "/say second answer")
	require.Contains(t, b, "/say other answer")
	require.NotContains(t, rows, "first answer", "what both share is above the rows")
	require.Contains(t, section(t, r.Body, "diff-shared"), "first answer", "the last shared messages give the context")

	same := e.operatorGet("/diff?a=left&b=left")
	require.Equal(t, http.StatusOK, same.Status)
	require.Contains(t, same.Body, fmt.Sprintf("The conversations are the same (%d messages).", len(la.Conversation)))

	for q, want := range map[string]string{
		"/diff?a=left":          "bad_input",
		"/diff":                 "bad_input",
		"/diff?a=left&b=nobody": "not_found",
		"/diff?a=left&b=%01":    "bad_id",
		"/diff?a=" + strings.Repeat("x", 1001) + "&b=left": "bad_id",
	} {
		r := e.do(http.MethodGet, q, nil, map[string]string{"Accept": "application/json"}, nil)
		require.Equal(t, want, r.JSON(t)["code"], q)
	}
}

// A position outside what the agent's history holds is the client's typed
// refusal (agent.ForkRangeError), and the console's 409 with its text:
// past the source's last event, and before a fork's own log begins.
func TestAForkPositionOutsideWhatHistoryHoldsIsATypedRefusal(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, 2*time.Minute)
	src, end1 := e.twoTurns(ctx, "ranged")
	n := int64(logLen(t, ctx, src))

	_, err := src.Fork(ctx, n+5, agent.WithForkID("never"))
	var re *agent.ForkRangeError
	require.ErrorAs(t, err, &re)
	require.ErrorIs(t, err, agent.ErrForkOutOfRange)
	require.Equal(t, agent.ForkRangeError{Agent: "ranged", At: n + 5, First: 0, Last: n - 1}, *re)
	require.EqualError(t, err, fmt.Sprintf("fork position out of range: cannot fork ranged at %d: its history holds positions 0 to %d", n+5, n-1))

	f, err := src.Fork(ctx, end1, agent.WithForkID("ranged-fork"), agent.AppendMessage("/say forked"))
	require.NoError(t, err)
	_, err = f.WaitIdle(ctx)
	require.NoError(t, err)
	fn := int64(logLen(t, ctx, f))
	_, err = f.Fork(ctx, end1, agent.WithForkID("never"))
	require.ErrorAs(t, err, &re, "the fork point is the source's position, not the fork's")
	require.Equal(t, agent.ForkRangeError{Agent: "ranged-fork", At: end1, First: end1 + 1, Last: end1 + fn}, *re)

	for _, c := range []struct {
		agent string
		at    int64
		says  string
	}{
		{"ranged", n, fmt.Sprintf("its history holds positions 0 to %d", n-1)},
		{"ranged-fork", end1 - 1, fmt.Sprintf("its history holds positions %d to %d", end1+1, end1+fn)},
	} {
		r := e.act("/agents/"+c.agent+"/fork", url.Values{"at": {fmt.Sprint(c.at)}, "new_id": {"never"}})
		require.Equal(t, http.StatusConflict, r.Status, r.Body)
		require.Equal(t, "fork_position", r.JSON(t)["code"])
		require.Contains(t, r.JSON(t)["error"], c.says)
	}
	_, err = e.c.DescribeWorkflowExecution(ctx, "never", "")
	require.Error(t, err, "no fork was started")
}
