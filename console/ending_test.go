package console

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/signals"
)

func (e *env) page(path string) string {
	return e.do(http.MethodGet, path, nil, map[string]string{"Authorization": "Bearer " + testToken}, nil).Body
}

func TestAFailedOrTerminatedAgentShowsHowAndWhyItEndedAndItsLastEvents(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, time.Minute)
	run, err := e.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "broken", TaskQueue: signals.TaskQueue}, signals.AgentWorkflow,
		signals.AgentInput{Options: signals.AgentOptions{Tools: []string{"nosuchtool"}}, First: &signals.Message{ID: "m", Content: "hi"}})
	require.NoError(t, err)
	require.Error(t, run.Get(ctx, nil))
	page := e.page("/agents/broken")
	require.Contains(t, page, `<span class="chip closed failed" id="status-chip">failed</span>`)
	require.Regexp(t, `id="ending" role="status">failed <time[^>]*>[^<]*</time>: [^<]*nosuchtool`, page)
	require.Contains(t, page, "No turns: the agent ended before its first")

	e.idle(ctx, "pulled", "/say one", signals.AgentOptions{})
	require.NoError(t, e.c.TerminateWorkflow(ctx, "pulled", "", "operator pulled the plug"))
	page = e.page("/agents/pulled")
	require.Contains(t, page, `<span class="chip closed terminated" id="status-chip">terminated</span>`)
	require.Regexp(t, `id="ending" role="status">terminated <time[^>]*>[^<]*</time>: operator pulled the plug`, page)
	last := page[strings.Index(page, `id="last-events"`):]
	last = last[:strings.Index(last, "</ol>")]
	require.Contains(t, last, "<b>assistant/message</b>", "what it did before it ended")
	require.Contains(t, last, "<b>status</b>")

	e.idle(ctx, "done", "/say one", signals.AgentOptions{})
	h, err := e.agents.Attach(ctx, "done")
	require.NoError(t, err)
	require.NoError(t, h.Dispose(ctx, "work finished"))
	require.Eventually(t, func() bool {
		return strings.Contains(e.page("/agents/done"), `<span class="chip closed disposed" id="status-chip">disposed</span>`)
	}, 20*time.Second, 50*time.Millisecond)
	require.Regexp(t, `id="ending" role="status">disposed <time[^>]*>[^<]*</time>: work finished`, e.page("/agents/done"))

	list := e.page("/agents?status=closed")
	for _, w := range []string{"failed", "terminated", "disposed"} {
		require.Contains(t, list, `<span class="chip closed `+w+`">`+w+`</span>`)
	}
}
