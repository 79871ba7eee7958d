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
	p := browsertest.Open(t)
	p.Timeout = 30 * time.Second
	text := func(sel string) string {
		t.Helper()
		return p.Eval(`document.querySelector(` + "`" + sel + "`" + `).textContent`)
	}

	signIn(p, e, "/agents/truthful")
	p.Wait(`!!document.querySelector("#model-form")`)
	require.Equal(t, "scripted/scripted-demo", text(".model-in-force"), "the model the worker resolved")
	p.Set("#model-form input[name=provider]", "nope")
	p.Set("#model-form input[name=model]", "x")
	p.Click("#model-form button")
	p.Wait(`(() => { const r = document.getElementById('result'); return r.classList.contains('error') && r.textContent.includes('(rejected)'); })()`)
	require.Contains(t, text("#result"), `provider "nope" is not offered by this worker`)

	require.NoError(t, e.c.TerminateWorkflow(ctx, "truthful", "", "operator pulled the plug"))
	p.Do(chromedp.Reload())
	p.Wait(`(() => { const c = document.getElementById('status-chip'); return !!c && c.textContent === 'terminated'; })()`)
	require.True(t, strings.HasSuffix(text("#ending"), ": operator pulled the plug"), text("#ending"))
	require.Contains(t, text("#last-events"), "assistant/message")
	require.Equal(t, "scripted/scripted-demo", text(".model-in-force"), "the refused switch changed nothing")
}
