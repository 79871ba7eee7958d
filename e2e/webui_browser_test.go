package e2e

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/internal/browsertest"
	"github.com/tetherdev/tether/signals"
)

// pageText is the page's text with that of its same-origin frames, where
// the Web UI renders summaries.
const pageText = `(document.body ? document.body.innerText : "") + "\n" + [...document.querySelectorAll("iframe")]
	.map(f => f.contentDocument && f.contentDocument.body ? f.contentDocument.body.innerText : "").join("\n")`

// pageShows polls the page until its text holds want, then returns it.
func pageShows(t *testing.T, b context.Context, want string) string {
	t.Helper()
	cond := `(` + pageText + `).includes(` + strconv.Quote(want) + `)`
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, err := chromedp.Run(b, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(time.Until(deadline))))
		if err == nil {
			text, err := chromedp.Run(b, chromedp.Evaluate[string](pageText))
			require.NoError(t, err)
			return text
		}
		if time.Now().After(deadline) || !strings.Contains(err.Error(), "context") && !strings.Contains(err.Error(), "navigated") {
			text, _ := chromedp.Run(b, chromedp.Evaluate[string](pageText))
			t.Fatalf("the page never showed %q (%v); it shows:\n%s", want, err, text)
		}
	}
}

// The Temporal Web UI that `worker --dev` serves finds an agent by Tether's
// search attributes and shows its activities by their readable summaries.
func TestWebUIFindsAgentsByTetherStatusAndShowsActivitySummaries(t *testing.T) {
	b := browsertest.New(t)
	uiPort := freePort(t)
	w := startDevWorker(t, []string{"--dev", "--data-dir", t.TempDir(), "--port", "0", "--ui-port", strconv.Itoa(uiPort),
		"--console-addr", ""}, nil)
	ctx := ctxT(t, 2*time.Minute)
	h, err := agent.New(w.c, "").Create(ctx, agent.CreateOptions{ID: "webui-agent",
		Options: signals.AgentOptions{Provider: "scripted", Model: "m1", Tools: []string{"calculate"}},
		First:   `/tool calculate {"expression":"6*7"}`})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	query := "TetherStatus = 'idle'"
	require.Eventually(t, func() bool {
		resp, err := w.c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: query})
		if err != nil {
			return false
		}
		var ids []string
		for _, ex := range resp.GetExecutions() {
			ids = append(ids, ex.GetExecution().GetWorkflowId())
		}
		return slices.Contains(ids, "webui-agent")
	}, 20*time.Second, 50*time.Millisecond, "visibility indexes the agent")

	base := w.srv.UIAddress() + "/namespaces/" + url.PathEscape(w.srv.Namespace())
	require.NoError(t, chromedp.Do(b, chromedp.Navigate(base+"/workflows?query="+url.QueryEscape(query))))
	pageShows(t, b, "webui-agent")
	require.NoError(t, os.MkdirAll("../docs", 0o755))
	browsertest.Screenshot(t, b, filepath.Join("../docs", "webui-filter.png"))

	desc, err := w.c.DescribeWorkflowExecution(ctx, h.ID, "")
	require.NoError(t, err)
	run := desc.GetWorkflowExecutionInfo().GetExecution().GetRunId()
	require.NoError(t, chromedp.Do(b, chromedp.Navigate(base+"/workflows/webui-agent/"+run+"/history")))
	text := pageShows(t, b, "model m1 turn 1 step 1")
	require.Contains(t, text, "tool calculate turn 1 step 1")
	_, err = chromedp.Run(b, chromedp.Evaluate[bool](`(document.querySelector('[data-testid="event-summary-row"]').scrollIntoView(), true)`))
	require.NoError(t, err)
	browsertest.Screenshot(t, b, filepath.Join("../docs", "webui-history.png"))
}
