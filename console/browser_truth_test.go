package console

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/internal/browsertest"
	"github.com/tetherdev/tether/signals"
)

// In a real browser: Switch model to a provider the worker lacks shows the
// refusal and the agent keeps the model it was resolved to; a terminated
// agent's page says it was terminated, why, and what it did last.
func TestBrowserShowsARefusedModelSwitchAndHowAnAgentEnded(t *testing.T) {
	e := newEnv(t, envOptions{console: Options{Token: testToken}})
	ctx := ctxT(t, 2*time.Minute)
	e.idle(ctx, "truthful", "/say one", signals.AgentOptions{})
	b := browsertest.New(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		require.NoError(t, chromedp.Do(b, steps...))
	}
	wait := func(cond string) {
		t.Helper()
		_, err := chromedp.Run(b, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(30*time.Second)))
		if err != nil {
			page, _ := chromedp.Run(b, chromedp.Evaluate[string](`document.body.innerHTML`))
			require.NoError(t, err, "waiting for %s; the page:\n%s", cond, page)
		}
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(b, chromedp.Evaluate[string](`document.querySelector(`+"`"+sel+"`"+`).textContent`))
		require.NoError(t, err, sel)
		return v
	}

	do(chromedp.Navigate(e.web.URL+"/login?next=/agents/truthful"),
		chromedp.SendKeys(css("input[name=token]"), testToken),
		chromedp.Click(css(".login button")),
		chromedp.WaitVisible(css("#model-form")))
	require.Equal(t, "scripted/scripted-demo", text(".model-in-force"), "the model the worker resolved")
	do(chromedp.SetValue(css("#model-form input[name=provider]"), "nope"),
		chromedp.SetValue(css("#model-form input[name=model]"), "x"),
		chromedp.Click(css("#model-form button")))
	wait(`(() => { const r = document.getElementById('result'); return r.classList.contains('error') && r.textContent.includes('(rejected)'); })()`)
	require.Contains(t, text("#result"), `provider "nope" is not offered by this worker`)

	require.NoError(t, e.c.TerminateWorkflow(ctx, "truthful", "", "operator pulled the plug"))
	do(chromedp.Reload())
	wait(`(() => { const c = document.getElementById('status-chip'); return !!c && c.textContent === 'terminated'; })()`)
	require.True(t, strings.HasSuffix(text("#ending"), ": operator pulled the plug"), text("#ending"))
	require.Contains(t, text("#last-events"), "assistant/message")
	require.Equal(t, "scripted/scripted-demo", text(".model-in-force"), "the refused switch changed nothing")
}
