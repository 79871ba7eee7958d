package e2e

import (
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/internal/browsertest"
	"github.com/tetherdev/tether/signals"
)

// The embedded Web UI decodes an encrypted agent's activity summaries
// through the codec server, which needs its token: the UI reaches it by the
// secret path it was given, from its own origin.
func TestTheEmbeddedWebUIDecodesThroughTheTokenProtectedCodecServer(t *testing.T) {
	b := browsertest.New(t)
	uiPort := freePort(t)
	w := startDevWorker(t, []string{"--dev", "--data-dir", t.TempDir(), "--port", "0", "--ui-port", strconv.Itoa(uiPort),
		"--codec-addr", "127.0.0.1:0", "--console-addr", ""}, map[string]string{codec.EnvKeys: codecKey(t, "k1")})
	ctx := ctxT(t, 2*time.Minute)
	h, err := agent.New(w.c, "", agent.WithDataConverter(w.dc)).Create(ctx, agent.CreateOptions{ID: "sealed",
		Options: signals.AgentOptions{Provider: "scripted", Model: "m7"}, First: "/say sealed"})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	desc, err := w.c.DescribeWorkflowExecution(ctx, h.ID, "")
	require.NoError(t, err)
	run := desc.GetWorkflowExecutionInfo().GetExecution().GetRunId()

	page := w.srv.UIAddress() + "/namespaces/" + url.PathEscape(w.srv.Namespace()) + "/workflows/sealed/" + run + "/history"
	require.NoError(t, chromedp.Do(b, chromedp.Navigate(page)))
	pageShows(t, b, "model m7 turn 1 step 1")
}
