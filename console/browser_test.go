package console

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/internal/browsertest"
	"github.com/tetherdev/tether/signals"
)

// docs is where the browser test leaves its screenshots for the README.
const docs = "../docs"

// sentence is n numbered words: "a01 a02 ...", so order and gaps show.
func sentence(prefix string, n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("%s%02d", prefix, i+1)
	}
	return strings.Join(words, " ")
}

// liveHas is a condition: the live text of step key (turn-step) holds word.
func liveHas(key, word string) string {
	return fmt.Sprintf(`(() => { const el = document.getElementById('live-%s'); return !!el && el.textContent.includes(%q); })()`, key, word)
}

// navigating reports whether err says the page changed under a poll.
func navigating(err error) bool {
	for _, s := range []string{"navigated or closed", "Cannot find context with specified id", "Execution context was destroyed"} {
		if strings.Contains(err.Error(), s) {
			return true
		}
	}
	return false
}

// The console in a real browser: log in, start an agent, watch its tokens
// arrive, get a typed error, cancel a turn in flight, watch the next turn's
// tokens arrive on the same page, reload mid-turn and find nothing lost;
// then approve a pending call, see a child appear in the tree and finish,
// reload while it runs, and see a detached child's new turn in the tree as
// it runs.
func TestBrowserWatchesTokensApprovesACallFollowsAChildCancelsATurnAndLosesNothingOnReload(t *testing.T) {
	e := newEnv(t, envOptions{wordDelay: 60 * time.Millisecond, console: Options{Token: testToken}})
	b := browsertest.New(t)
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		require.NoError(t, chromedp.Do(b, steps...))
	}
	wait := func(cond string) {
		t.Helper()
		deadline := time.Now().Add(45 * time.Second)
		for {
			_, err := chromedp.Run(b, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(time.Until(deadline))))
			if err == nil {
				return
			}
			// A navigation (the page's own redirect, a reload) ends a poll
			// early: ask the new page.
			if !navigating(err) || time.Now().After(deadline) {
				page, _ := chromedp.Run(b, chromedp.Evaluate[string](`document.body.innerHTML`))
				require.NoError(t, err, "waiting for %s; the page:\n%s", cond, page)
			}
		}
	}
	eval := func(js string) string {
		t.Helper()
		v, err := chromedp.Run(b, chromedp.Evaluate[string](js))
		require.NoError(t, err, js)
		return v
	}
	require.NoError(t, os.MkdirAll(docs, 0o755))
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }

	// Log in, and start an agent from the list page.
	do(chromedp.Navigate(e.web.URL+"/login?next=/agents"),
		chromedp.SendKeys(css("input[name=token]"), testToken),
		chromedp.Click(css(".login button")),
		chromedp.WaitVisible(css("#agents")),
		chromedp.Click(css("#new-agent summary")),
		chromedp.SetValue(css("#new-agent input[name=id]"), "browser"),
		chromedp.SetValue(css("#new-agent input[name=tools]"), "calculate"),
		chromedp.SetValue(css("#new-agent textarea[name=first]"), "/say "+sentence("a", 40)),
		chromedp.Click(css("#new-agent button")))
	wait(`location.pathname === "/agents/browser"`)

	// Tokens arrive while the step is still calling the model.
	wait(liveHas("1-1", "a05"))
	state := eval(`document.getElementById('live-1-1').textContent + '|' + document.querySelectorAll('#turn-1 .msg.assistant').length`)
	require.True(t, strings.HasPrefix(state, "a01 a02 a03 a04 a05"), state)
	require.True(t, strings.HasSuffix(state, "|0"), "no settled message yet: %s", state)
	eval(`(window.scrollTo(0, 0), "")`)
	browsertest.Screenshot(t, b, filepath.Join(docs, "console-live.png"))
	wait(`(() => { const m = document.querySelector('#turn-1 .msg.assistant'); return !!m && m.textContent.includes('a40'); })()`)
	require.Equal(t, sentence("a", 40), eval(`document.querySelector('#turn-1 .msg.assistant .md').textContent.trim()`))
	require.Equal(t, "0", eval(`String(document.querySelectorAll('.live').length)`), "the live text gave way to the message")
	wait(`document.getElementById('status-chip').textContent === 'idle'`)

	// The server's typed error reaches the page.
	do(chromedp.Click(css("#send-followup")))
	wait(`(() => { const r = document.getElementById('result'); return r.classList.contains('error') && r.textContent.includes('(empty_message)'); })()`)

	// Cancel the turn in flight.
	do(chromedp.SetValue(css("#message-form textarea"), "/say "+sentence("b", 80)), chromedp.Click(css("#send-followup")))
	wait(liveHas("2-1", "b03"))
	do(chromedp.SetValue(css("#cancel-form input[name=cause]"), "seen enough"), chromedp.Click(css("#cancel-turn")))
	wait(`!!document.querySelector('#turn-2 .tag.end.canceled')`)
	turn2 := eval(`document.getElementById('turn-2').textContent`)
	require.Contains(t, turn2, "cancel requested: seen enough")
	require.Equal(t, "0", eval(`String(document.querySelectorAll('#turn-2 .msg.assistant').length)`), "the answer never finished")
	require.Contains(t, turn2, "model call canceled")
	wait(`document.getElementById('status-chip').textContent === 'idle'`)

	// The next call streams live to the same page, whole, while the
	// canceled call's tail may still be streaming; then a reload mid-turn
	// brings the whole call so far back.
	do(chromedp.SetValue(css("#message-form textarea"), "/say "+sentence("c", 50)), chromedp.Click(css("#send-followup")))
	wait(liveHas("3-1", "c06"))
	require.True(t, strings.HasPrefix(eval(`document.getElementById('live-3-1').textContent`), "c01 c02 c03"),
		"the call after a canceled one streams live from its first token")
	do(chromedp.Reload())
	wait(liveHas("3-1", "c06"))
	require.True(t, strings.HasPrefix(eval(`document.getElementById('live-3-1').textContent`), "c01 c02 c03"),
		"after the reload the live text starts at the call's first token")
	wait(`(() => { const m = document.querySelector('#turn-3 .msg.assistant'); return !!m && m.textContent.includes('c50'); })()`)
	require.Equal(t, sentence("c", 50), eval(`document.querySelector('#turn-3 .msg.assistant .md').textContent.trim()`))
	wait(`document.getElementById('status-chip').textContent === 'idle'`)
	browsertest.Screenshot(t, b, filepath.Join(docs, "console-agent.png"))

	// What live updates built equals what the server renders from the log.
	livePage := eval(`document.getElementById('transcript').innerText`)
	do(chromedp.Navigate(e.web.URL + "/agents/browser"))
	require.Equal(t, livePage, eval(`document.getElementById('transcript').innerText`))
	for turn := 1; turn <= 3; turn++ {
		require.Equal(t, "1", eval(`String(document.querySelectorAll('#turn-`+strconv.Itoa(turn)+`').length)`))
	}

	// The scrubber, moved back to the end of turn 1, shows the session as
	// it was then, read-only; the banner leads back to live.
	end1 := strings.TrimPrefix(eval(`document.querySelector('#turn-1 a.asof').getAttribute('href')`), "?at=")
	eval(`(() => { const s = document.getElementById('scrub-at'); s.value = '` + end1 + `'; s.dispatchEvent(new Event('change')); return ''; })()`)
	wait(`location.search === '?at=` + end1 + `' && !!document.getElementById('scrubbed')`)
	require.Equal(t, "1|0|0|0", eval(`[document.querySelectorAll('#turn-1').length, document.querySelectorAll('#turn-2, #turn-3').length,
		document.querySelectorAll('form[data-act]:not(#fork-form)').length, document.querySelectorAll('.live').length].join('|')`),
		"turn 1 only, no form that acts on the agent (the fork form starts another), nothing live")
	require.Equal(t, "1", eval(`String(document.querySelectorAll('#fork-form').length)`), "a scrubbed page offers to fork from there")
	require.Contains(t, eval(`document.getElementById('scrubbed').textContent`), "Viewing the session as of seq "+end1)
	eval(`(window.scrollTo(0, 0), "")`)
	browsertest.Screenshot(t, b, filepath.Join(docs, "console-replay.png"))
	do(chromedp.Click(css("#back-to-live")))
	wait(`location.search === '' && document.querySelectorAll('#turn-3').length === 1 && !!document.getElementById('message-form')`)

	do(chromedp.Navigate(e.web.URL+"/agents"), chromedp.WaitVisible(css(`#agents tr[data-agent="browser"]`)))
	browsertest.Screenshot(t, b, filepath.Join(docs, "console-list.png"))

	orchestrate(t, e, b, do, wait, eval)
}

// orchestrate drives the people-and-children part of the browser test.
func orchestrate(t *testing.T, e *env, b context.Context, do func(...chromedp.Action[chromedp.Void]), wait func(string), eval func(string) string) {
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	ctx := ctxT(t, 2*time.Minute)
	e.create(ctx, "orchestrator", `/tool echo {"text":"deploy v2 to production"}`, signals.AgentOptions{
		Tools: []string{"echo", signals.SpawnTool}, Approval: &signals.ApprovalPolicy{Tools: []string{"echo"}}})
	do(chromedp.Navigate(e.web.URL + "/agents/orchestrator"))

	// The card shows the call and its arguments; approving it runs the call.
	wait(`!!document.querySelector('#status .card.pending form.decide button.approve')`)
	card := eval(`document.querySelector('#status .card.pending').innerText`)
	require.Contains(t, card, "echo")
	require.Contains(t, card, `{"text":"deploy v2 to production"}`)
	require.Contains(t, card, "waiting")
	require.NotEmpty(t, eval(`document.querySelector('#status form.decide input[name=csrf]').value`), "the live card carries the session's token")
	eval(`(window.scrollTo(0, 0), "")`)
	browsertest.Screenshot(t, b, filepath.Join(docs, "console-approval.png"))
	do(chromedp.SetValue(css("#status form.decide textarea"), "checked the diff"), chromedp.Click(css("#status form.decide button.approve")))
	wait(`!document.querySelector('#status .card.pending')`)
	wait(`(() => { const t = document.getElementById('turn-1'); return !!t && t.innerText.includes('echo: deploy v2 to production'); })()`)
	wait(`document.getElementById('status-chip').textContent === 'idle'`)

	// A child appears in the tree; reloaded while it runs, the page still
	// shows it; it finishes and reports.
	do(chromedp.SetValue(css("#message-form textarea"), `/tool spawn_agent {"task":"/say `+sentence("d", 60)+`","mode":"wait"}`),
		chromedp.Click(css("#send-followup")))
	wait(`!!document.querySelector('#children li[data-child]')`)
	child := eval(`document.querySelector('#children li[data-child]').dataset.child`)
	do(chromedp.Reload())
	wait(`!!document.querySelector('#children li[data-child="` + child + `"]')`)
	wait(`document.querySelector('#children li[data-child]').innerText.includes('1 reported')`)
	wait(`document.getElementById('status-chip').textContent === 'idle'`)
	require.Contains(t, eval(`document.getElementById('transcript').innerText`), sentence("d", 60), "the child's answer is the spawn call's result")
	browsertest.Screenshot(t, b, filepath.Join(docs, "console-tree.png"))

	// The child's page links back to its parent.
	do(chromedp.Click(css(`#children li[data-child] a`)))
	wait(`location.pathname === "/agents/` + url.PathEscape(child) + `"`)
	wait(`!!document.getElementById('parent-link')`)
	require.Equal(t, "orchestrator", eval(`document.getElementById('parent-link').textContent`))

	// A detached child's new turn shows in the parent's tree as it runs,
	// though nothing moved in the parent's log.
	h, err := e.agents.Attach(ctx, "orchestrator")
	require.NoError(t, err)
	detached, err := h.Spawn(ctx, signals.SpawnArgs{Task: "/say ready", Mode: "detach"})
	require.NoError(t, err)
	dh := e.attach(ctx, detached)
	_, err = dh.WaitIdle(ctx)
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	do(chromedp.Navigate(e.web.URL + "/agents/orchestrator"))
	entry := `document.querySelector('#children li[data-child="` + detached + `"]')`
	wait(`!!` + entry + ` && ` + entry + `.querySelector('.chip').textContent === 'idle'`)
	_, err = dh.Followup(ctx, "/say "+sentence("e", 80))
	require.NoError(t, err)
	wait(entry + `.querySelector('.chip').textContent === 'running' && ` + entry + `.innerText.includes('turn 2')`)
}
