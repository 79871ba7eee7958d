package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// recorder is the scripted model, keeping every request it gets as JSON.
type recorder struct {
	mu   sync.Mutex
	reqs []string
}

func (r *recorder) Complete(ctx context.Context, req llm.Request) (eventlog.AssistantMessage, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return eventlog.AssistantMessage{}, err
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, string(b))
	r.mu.Unlock()
	return scripted.Provider{}.Complete(ctx, req)
}

func (r *recorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.reqs...)
}

// countingLog counts the log queries activities make.
type countingLog struct {
	activities.LogQuerier
	n *atomic.Int64
}

func (c countingLog) QueryLog(ctx context.Context, agentID, runID string, req signals.LogRequest) (signals.LogPage, error) {
	c.n.Add(1)
	return c.LogQuerier.QueryLog(ctx, agentID, runID, req)
}

// lenTool answers the length of its "text" argument.
func lenTool() tools.Tool {
	return tools.Tool{Name: "len", Description: "Count the characters of text.",
		Run: func(_ context.Context, c tools.Call) (tools.Result, error) {
			var a struct{ Text string }
			if err := json.Unmarshal(c.Arguments, &a); err != nil {
				return tools.Result{}, err
			}
			return tools.Result{Content: fmt.Sprint(len(a.Text))}, nil
		}}
}

// snapshotScenario drives one agent through turns with small and large
// tool arguments, Continue-As-New every two turns, a worker restart, and
// the workflow on one worker with its activities on another, and returns
// the model requests in order and the log queries of each phase.
func snapshotScenario(t *testing.T, snapshots bool) (reqs []string, queries map[string]int64) {
	e := newEnv(t)
	rec := &recorder{}
	e.providers = map[string]activities.Provider{"rec": rec}
	e.cfg.MaxRunTurns = 2
	e.noSnapshots = !snapshots
	var n atomic.Int64
	e.querier = func(q activities.LogQuerier) activities.LogQuerier { return countingLog{q, &n} }
	ctx := ctxT(t, 2*time.Minute)
	queries = map[string]int64{}
	phase := func(name string, w func(), messages ...string) {
		n.Store(0)
		w()
		h, err := e.agents.Attach(ctx, "snap")
		require.NoError(t, err)
		for _, m := range messages {
			_, err := h.Followup(ctx, m)
			require.NoError(t, err)
			require.Eventually(t, func() bool {
				st, err := h.WaitIdle(ctx)
				return err == nil && st.Idle()
			}, time.Minute, 20*time.Millisecond)
		}
		queries[name] = n.Load()
	}
	large := strings.Repeat("x", 3*signals.MaxInlineArguments)
	w1 := e.startWorker(echoTool(), lenTool())
	_, err := e.agents.Create(ctx, agent.CreateOptions{ID: "snap", First: `/tool echo {"text":"first"}`,
		Options: signals.AgentOptions{Provider: "rec", SystemPrompt: "be exact", Tools: []string{"echo", "len"}}})
	require.NoError(t, err)
	phase("one worker", func() {},
		`/tool len {"text":"`+large+`"}`, "/say plain", `/tool echo {"text":"a"}`+"\n"+`/tool len {"text":"b"}`, "/repeat 3 echo {\"text\":\"r\"}")
	var w2 worker.Worker
	phase("restarted worker", func() { w1.Stop(); w2 = e.startWorker(echoTool(), lenTool()) },
		`/tool len {"text":"`+large+`"}`, "/say after restart", `/tool echo {"text":"c"}`)
	phase("workflow and activities on two workers", func() {
		w2.Stop()
		e.workerOptions = worker.Options{LocalActivityWorkerOnly: true} // the workflow, no activities
		e.startWorker(echoTool(), lenTool())
		e.workerOptions = worker.Options{DisableWorkflowWorker: true} // the activities
		e.startWorker(echoTool(), lenTool())
	}, `/tool echo {"text":"d"}`, `/tool len {"text":"`+large+`"}`, "/repeat 2 echo {\"text\":\"s\"}", "/say bye")
	return rec.requests(), queries
}

// History-once in the hot path: when the agent's workflow runs in the
// worker that runs its activities, they read the log from the snapshot the
// workflow publishes in process, not with a query; the model requests are
// byte for byte those the query path makes, across Continue-As-New, a
// worker restart and activities running on another worker.
func TestModelRequestsFromSnapshotsEqualThoseFromTheLogQuery(t *testing.T) {
	viaSnapshots, snapQueries := snapshotScenario(t, true)
	viaQuery, queryQueries := snapshotScenario(t, false)

	require.Len(t, viaSnapshots, len(viaQuery))
	for i := range viaQuery {
		require.Equal(t, viaQuery[i], viaSnapshots[i], "model request %d", i)
	}
	require.Greater(t, len(viaQuery), 20)
	t.Logf("log queries with snapshots %v, without %v", snapQueries, queryQueries)
	require.Zero(t, snapQueries["one worker"], "the workflow's own worker reads no log query")
	require.Zero(t, snapQueries["restarted worker"], "a restarted worker replays, publishes and reads no query")
	require.Positive(t, snapQueries["workflow and activities on two workers"], "another worker's activities query")
	require.Greater(t, queryQueries["one worker"], int64(10))
}
