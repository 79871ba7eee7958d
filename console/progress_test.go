package console

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/signals"
)

// progressTool is the gate that says how far it is: progress 1 of 2 when
// it starts, 2 of 2 once the test steps it (g.step), and it passes when
// the test lets it (a send on g.pass).
func (g *gate) progressTool() tools.Tool {
	return tools.Tool{
		Name: "progress_gate", Description: "Report progress and wait for the test.",
		Run: func(ctx context.Context, c tools.Call) (tools.Result, error) {
			tools.ReportProgress(ctx, tools.Progress{Progress: 1, Total: 2, Message: "at the gate"})
			for _, ch := range []chan struct{}{g.step, g.pass} {
				select {
				case <-ch:
				case <-ctx.Done():
					return tools.Result{}, ctx.Err()
				}
				tools.ReportProgress(ctx, tools.Progress{Progress: 2, Total: 2, Message: "through"})
			}
			return tools.Result{Content: "gate passed"}, nil
		},
	}
}

// A running tool call's progress shows in the agent page's status panel,
// and the live feed brings each new report though nothing moves in the
// log; once the call ended the panel has none.
func TestTheStatusPanelShowsARunningCallsProgressLiveAndNoneOnceItEnded(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, time.Minute)
	h := e.create(ctx, "progressing", "/tool progress_gate {}", signals.AgentOptions{Tools: []string{"progress_gate"}})
	waitCallProgress(t, ctx, h, 1)

	page := section(t, e.get("/agents/progressing").Body, "progress")
	require.Contains(t, page[:strings.Index(page, "</ul>")], `<code>progress_gate</code> 1/2 &#34;at the gate&#34;`)

	events := e.stream(ctx, "progressing", nil, "?from=0")
	panel := func(ev sse) string {
		if ev.Event != "status" {
			return ""
		}
		var st struct{ HTML string }
		require.NoError(t, json.Unmarshal([]byte(ev.Data), &st))
		return st.HTML
	}
	until(t, ctx, events, func(ev sse) bool { return strings.Contains(panel(ev), "1/2 &#34;at the gate&#34;") })
	e.gate.step <- struct{}{}
	got := until(t, ctx, events, func(ev sse) bool { return strings.Contains(panel(ev), "2/2 &#34;through&#34;") })
	at := got[0].ID
	for _, ev := range got {
		require.Equal(t, "status", ev.Event, "nothing moved in the log")
		require.Equal(t, at, ev.ID)
	}

	e.gate.pass <- struct{}{}
	_, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	until(t, ctx, events, func(ev sse) bool {
		html := panel(ev)
		return strings.Contains(html, `id="status-chip">idle`) && !strings.Contains(html, `id="progress"`)
	})
	require.NotContains(t, e.get("/agents/progressing").Body, `id="progress"`)
}

// waitCallProgress waits until the agent's one running call reports
// progress n to Temporal.
func waitCallProgress(t *testing.T, ctx context.Context, h *agent.Handle, n float64) {
	t.Helper()
	require.Eventually(t, func() bool {
		calls, err := h.Calls(ctx)
		return err == nil && len(calls.Progress) == 1 && calls.Progress[0].Progress == n
	}, 30*time.Second, 50*time.Millisecond, "the call's progress reached Temporal")
}
