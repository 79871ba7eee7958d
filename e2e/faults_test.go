package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// killEachAttempt kills the worker process running the slow tool each time
// a new attempt of it starts, kills times, then starts a worker that lets it
// finish. Every restarted worker blocks again until the last.
func (e *env) killEachAttempt(dir string, first interface{ Kill() error }, kills int) {
	e.t.Helper()
	proc := first
	for i := 1; i <= kills; i++ {
		waitFor(e.t, time.Minute, "attempt to start", func() bool { return countVerb(readLines(e.t, dir, "slow"), "start") >= i })
		require.NoError(e.t, proc.Kill())
		mode := "block"
		if i == kills {
			mode = "fast"
		}
		proc = e.startWorkerProcess(dir, mode).Process
	}
}

func countVerb(fields []string, verb string) int {
	n := 0
	for i := 0; i < len(fields); i += 2 {
		if fields[i] == verb {
			n++
		}
	}
	return n
}

// A tool whose worker is killed with SIGKILL at every attempt, more times
// than the tool's attempt budget, still runs to success: faults never count
// against its attempts and the model never hears of them.
func TestToolInterruptedByRepeatedWorkerKillsRunsToSuccess(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	ctx := ctxT(t, 3*time.Minute)
	first := e.startWorkerProcess(dir, "block")
	h, err := e.agents.Create(ctx, agent.CreateOptions{
		ID: "kills", Options: signals.AgentOptions{Tools: []string{"slow"}}, First: "/tool slow {}",
	})
	require.NoError(t, err)

	const kills = signals.DefaultAttempts + 1
	e.killEachAttempt(dir, first.Process, kills)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	evs := events(t, mustLog(t, h))
	results := ofType[eventlog.ToolResult](evs)
	require.Len(t, results, 1)
	require.False(t, results[0].IsError, results[0].Content)
	require.Equal(t, "slow ok kills/1/1/call_1_0", results[0].Content)
	require.Empty(t, ofType[eventlog.AssistantAttempt](evs))
	for _, m := range ofType[eventlog.AssistantMessage](evs) {
		require.NotContains(t, m.Text, "timed out")
	}
	slow := readLines(t, dir, "slow")
	require.Equal(t, kills+1, countPair(slow, "start", "kills/1/1/call_1_0"), "one start per attempt: %v", slow)
	require.Equal(t, 1, countPair(slow, "done", "kills/1/1/call_1_0"))
}

// A model call whose worker is killed mid-call runs again on the next
// worker: no failed attempt is recorded and no retry turn opens.
func TestModelCallInterruptedByWorkerKillRunsAgainWithoutAFailedAttempt(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	ctx := ctxT(t, 2*time.Minute)
	first := e.startWorkerProcess(dir, "block")
	h, err := e.agents.Create(ctx, agent.CreateOptions{ID: "hang", First: "/hang\n/say answered"})
	require.NoError(t, err)
	waitFor(t, time.Minute, "the model call to start", func() bool { return len(readLines(t, dir, "model")) >= 2 })
	require.NoError(t, first.Process.Kill())
	e.startWorkerProcess(dir, "fast")
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	evs := events(t, mustLog(t, h))
	require.Empty(t, ofType[eventlog.AssistantAttempt](evs), "a fault is not a failed call")
	require.Len(t, ofType[eventlog.TurnStart](evs), 1, "no retry turn")
	msgs := ofType[eventlog.AssistantMessage](evs)
	require.Len(t, msgs, 1)
	require.Equal(t, "answered", msgs[0].Text)
	require.Equal(t, 2, countVerb(readLines(t, dir, "model"), "start"), "the call ran again")
}

// flakyTool fails its first failures calls with a retryable error, then
// answers; it counts its runs.
func flakyTool(name string, failures int32, runs *atomic.Int32) tools.Tool {
	return tools.Tool{
		Name: name, Description: "Fails a few times, then answers.",
		Run: func(context.Context, tools.Call) (tools.Result, error) {
			if runs.Add(1) <= failures {
				return tools.Result{}, errors.New("backend unavailable")
			}
			return tools.Result{Content: "finally"}, nil
		},
	}
}

// The tool's own failures are counted across attempts on the real server
// (the count rides in heartbeat details): within the budget the call
// succeeds; past it the model sees the tool's error, after exactly that many
// runs.
func TestToolOwnFailuresCountAcrossAttemptsOnTheServer(t *testing.T) {
	e := newEnv(t)
	e.cfg.ToolAttempts = 3
	var recovered, never atomic.Int32
	e.startWorker(flakyTool("recovers", 2, &recovered), flakyTool("never", 1<<30, &never))
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{
		ID: "own", Options: signals.AgentOptions{Tools: []string{"recovers", "never"}}, First: "/tool recovers {}\n/tool never {}",
	})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	results := ofType[eventlog.ToolResult](events(t, mustLog(t, h)))
	require.Len(t, results, 2)
	byName := map[string]eventlog.ToolResult{results[0].Name: results[0], results[1].Name: results[1]}
	require.False(t, byName["recovers"].IsError)
	require.Equal(t, "finally", byName["recovers"].Content)
	require.EqualValues(t, 3, recovered.Load())
	require.True(t, byName["never"].IsError)
	require.Contains(t, byName["never"].Content, "backend unavailable (attempt 3 of 3)")
	require.EqualValues(t, 3, never.Load())
}

// A tool that runs past its own time limit fails on its own account, even
// if it ignores its context: the activity reports it and counts it, and
// the model is told the limit, not "timed out".
func TestToolPastItsTimeLimitFailsOnItsOwnAccount(t *testing.T) {
	e := newEnv(t)
	e.cfg.ToolTimeout, e.cfg.ToolAttempts = time.Second, 2
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	var runs atomic.Int32
	e.startWorker(tools.Tool{
		Name: "stuck", Description: "Ignores its context.",
		Run: func(context.Context, tools.Call) (tools.Result, error) {
			runs.Add(1)
			<-release
			return tools.Result{Content: "too late"}, nil
		},
	})
	ctx := ctxT(t, time.Minute)
	h, err := e.agents.Create(ctx, agent.CreateOptions{
		ID: "stuck", Options: signals.AgentOptions{Tools: []string{"stuck"}}, First: "/tool stuck {}",
	})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	r := ofType[eventlog.ToolResult](events(t, mustLog(t, h)))[0]
	require.True(t, r.IsError)
	require.Contains(t, r.Content, "did not finish within 1s (attempt 2 of 2)")
	require.False(t, strings.Contains(r.Content, "timed out"), r.Content)
	require.EqualValues(t, 2, runs.Load())
}

func mustLog(t *testing.T, h *agent.Handle) []eventlog.Envelope {
	t.Helper()
	log, err := h.Log(ctxT(t, 30*time.Second))
	require.NoError(t, err)
	return log
}

// Queued turns of tool calls while the worker process is killed again and
// again, mid-tool and just after a tool finished (as a user killing
// `worker --dev` would): every message is answered, every tool result is
// the tool's own, no model call is recorded as failed, and nothing the
// model reads says "timed out".
func TestRepeatedWorkerKillsNeverReachTheModel(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	ctx := ctxT(t, 4*time.Minute)
	proc := e.startWorkerProcess(dir, "paced").Process
	h, err := e.agents.Create(ctx, agent.CreateOptions{
		ID: "kill-storm", Options: signals.AgentOptions{Tools: []string{"echo", "slow"}}, First: "/tool slow {}\n/tool echo {}",
	})
	require.NoError(t, err)
	const followups = 8
	for i := 0; i < followups; i++ {
		_, err := h.Followup(ctx, "/tool slow {}\n/tool echo {}")
		require.NoError(t, err)
	}
	// Kill when the k-th slow call starts (mid-tool) or finishes (its
	// result on its way), alternately.
	for k := 1; k <= 6; k++ {
		verb := map[bool]string{true: "start", false: "done"}[k%2 == 1]
		waitFor(t, time.Minute, fmt.Sprintf("slow %s #%d", verb, k), func() bool { return countVerb(readLines(t, dir, "slow"), verb) >= k })
		require.NoError(t, proc.Kill())
		_, _ = proc.Wait()
		proc = e.startWorkerProcess(dir, "paced").Process
	}
	st := idleAcrossRuns(ctx, t, h)
	require.Equal(t, followups+1, st.Turn)

	log := mustLog(t, h)
	evs := events(t, log)
	for id, o := range eventlog.ConsumedWork(evs) {
		require.Equal(t, eventlog.EndCompleted, o.TurnEnd, "message %s", id)
	}
	require.Empty(t, ofType[eventlog.AssistantAttempt](evs))
	results := ofType[eventlog.ToolResult](evs)
	require.Len(t, results, 2*(followups+1))
	for _, r := range results {
		require.False(t, r.IsError, r.Content)
		require.Contains(t, r.Content, r.Name+" ok ")
	}
	for _, env := range log {
		require.NotContains(t, string(env.Data), "timed out")
	}
}
