package console

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/signals"
)

func TestAgentPageShowsTheConversationByTurnAndStep(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, time.Minute)
	e.idle(ctx, "talk", `/tool echo {"text":"hi there"}`, signals.AgentOptions{Tools: []string{"echo"}, Model: "m1",
		SystemPrompt: "Be terse.", Budget: &signals.Budget{Prices: signals.Prices{Input: 3, Output: 15}}})

	r := e.get("/agents/talk")
	require.Equal(t, http.StatusOK, r.Status)
	for _, want := range []string{
		`<article class="turn end-completed" id="turn-1"`, // the turn, ended
		`<span class="tag end completed">completed</span>`,
		`id="step-1-1"`, `id="step-1-2"`, // two steps: the call, then the answer
		"/tool echo {&#34;text&#34;:&#34;hi there&#34;}", // the user message
		`<span class="tool">echo</span>`,                 // the call with its arguments
		"&#34;text&#34;: &#34;hi there&#34;",
		`<pre class="result">echo: hi there</pre>`, // and its result
		`<span class="tag ok">ok</span>`,
		`<div class="md"><p>I used 1 tool call(s).`, // assistant text as Markdown
		"system prompt", "Be terse.",
		"tools</dt><dd>echo</dd>", // the options
		"cost 0.",                 // priced usage
		`<span class="chip idle" id="status-chip">idle</span>`,
		`data-live="true"`,
		`<span class="ctx" title="what the request carried">context `, // the latency strip
		`<svg class="bar"`, " chunks</span>",
	} {
		require.Contains(t, r.Body, want)
	}
	require.Equal(t, "no-store", r.Header.Get("Cache-Control"))
	require.Contains(t, r.Header.Get("Content-Security-Policy"), "script-src 'self'")
}

func TestModelOutputCannotInjectMarkup(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, time.Minute)
	e.idle(ctx, "inject", `/say see [x](javascript:alert(2)) <script>alert(1)</script> <img src=x onerror=alert(3)>`, signals.AgentOptions{})

	r := e.get("/agents/inject")
	require.Equal(t, http.StatusOK, r.Status)
	require.Contains(t, r.Body, "&lt;script&gt;alert(1)&lt;/script&gt;", "raw HTML shows as text")
	require.Contains(t, r.Body, `<a href="">x</a>`, "the unsafe link has no target")
	require.NotContains(t, r.Body, "<script>alert")
	require.NotContains(t, r.Body, `href="javascript`)
	require.NotContains(t, r.Body, "<img src=x")
}

func TestAFailedTurnShowsItsRecordedReasonAndItsRetries(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, time.Minute)
	e.idle(ctx, "flaky", "/fail overloaded", signals.AgentOptions{
		Retry: &signals.RetryPolicy{MaxRetries: 1, Initial: 10 * time.Millisecond}})

	r := e.get("/agents/flaky")
	require.Equal(t, http.StatusOK, r.Status)
	require.Contains(t, r.Body, `<span class="tag retry">retry of turn 1</span>`)
	require.Contains(t, r.Body, "model call failed: <b>overloaded</b>")
	require.Contains(t, r.Body, "scripted failure overloaded")
	require.Equal(t, 2, strings.Count(r.Body, `<span class="tag end failed">failed</span>`), "the turn and its retry")
}

func TestAToolTheAgentMayNotUseShowsItsOutcome(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, time.Minute)
	e.idle(ctx, "denied", `/tool echo {"text":"x"}`, signals.AgentOptions{Tools: []string{"calculate"}})

	r := e.get("/agents/denied")
	require.Contains(t, r.Body, `<span class="tag unavailable">unavailable</span>`)
	require.Contains(t, r.Body, `<div class="call error outcome-unavailable" data-call="call_1_0">`)
	require.Contains(t, r.Body, "tool &#34;echo&#34; is not available to this agent")
}

func TestAMissingAgentIsNotFound(t *testing.T) {
	e := newEnv(t, envOptions{})
	r := e.get("/agents/nobody")
	require.Equal(t, http.StatusNotFound, r.Status)
	require.Contains(t, r.Body, "agent not found")
	r = e.do(http.MethodGet, "/agents/nobody", nil, map[string]string{"Accept": "application/json"}, nil)
	require.Equal(t, "not_found", r.JSON(t)["code"])
}

func TestAClosedAgentIsReadFromHistoryWithoutActions(t *testing.T) {
	e := newEnv(t, envOptions{console: Options{Token: testToken}})
	ctx := ctxT(t, time.Minute)
	h := e.idle(ctx, "gone", "/say goodbye", signals.AgentOptions{})
	require.NoError(t, h.Dispose(ctx, "test over"))

	r := e.do(http.MethodGet, "/agents/gone", nil, map[string]string{"Authorization": "Bearer " + testToken}, nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Contains(t, r.Body, `<span class="chip closed disposed" id="status-chip">disposed</span>`)
	require.Contains(t, r.Body, "log read from history")
	require.Contains(t, r.Body, "goodbye")
	require.Contains(t, r.Body, "dispose requested: test over")
	require.Contains(t, r.Body, `data-live="false"`)
	require.NotContains(t, r.Body, `id="message-form"`)
}

func TestWithoutAWorkerThePageReadsHistoryAndSaysTheStatusIsUnavailable(t *testing.T) {
	e := newEnv(t, envOptions{console: Options{QueryTimeout: 300 * time.Millisecond}})
	ctx := ctxT(t, time.Minute)
	e.idle(ctx, "orphan", "/say still here", signals.AgentOptions{})
	e.w.Stop()

	r := e.get("/agents/orphan")
	require.Equal(t, http.StatusOK, r.Status)
	require.Contains(t, r.Body, "still here")
	require.Contains(t, r.Body, "no worker answered the log query")
	require.Contains(t, r.Body, "status unavailable:")
}

func TestALongAgentPageShowsTheLatestTurnsFirst(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, time.Minute)
	h := e.idle(ctx, "long", "/say 1", signals.AgentOptions{})
	for range WindowBlocks {
		_, err := h.Followup(ctx, "/say more")
		require.NoError(t, err)
	}
	_, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		st, err := h.Status(ctx)
		return err == nil && st.Turn == WindowBlocks+1
	}, 30*time.Second, 50*time.Millisecond)

	r := e.get("/agents/long")
	require.Contains(t, r.Body, `show 1 earlier turns`)
	require.NotContains(t, r.Body, `id="turn-1"`)
	require.Contains(t, r.Body, `id="turn-41"`)
	all := e.get("/agents/long?all=1")
	require.Contains(t, all.Body, `id="turn-1"`)
}

// An agent no worker has run (no worker polls its task queue) reads
// starting in the list and on its page, as starter ls and status say it,
// and its model, left to the worker, reads "worker default" in the list
// and the header, never a model named default/default.
func TestAnAgentNoWorkerHasRunReadsStartingWithTheWorkersDefaultModel(t *testing.T) {
	e := newEnv(t, envOptions{noWorker: true, console: Options{QueryTimeout: 300 * time.Millisecond}})
	ctx := ctxT(t, time.Minute)
	e.create(ctx, "unrun", "hi", signals.AgentOptions{})

	list := e.pageUntil("/agents", func(body string) bool { return strings.Contains(body, `href="/agents/unrun"`) })
	require.Contains(t, list, `<span class="chip starting">starting</span>`)
	require.Contains(t, list, "<td>worker default</td>")
	require.NotContains(t, list, "default/default")

	r := e.get("/agents/unrun")
	require.Contains(t, r.Body, `<span class="chip starting" id="status-chip">starting</span>`)
	require.Contains(t, r.Body, `<dd class="model-in-force">worker default</dd>`)
	require.NotContains(t, r.Body, "default/default")
}
