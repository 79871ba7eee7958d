package console

import (
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

// signIn signs the browser in to the console with the test's token and
// waits for the page it was going to, path.
func signIn(p *browsertest.Page, e *env, path string) {
	p.Go(e.web.URL + "/login?next=" + url.QueryEscape(path))
	p.Set("input[name=token]", testToken)
	p.Click(".login button")
	p.Wait(`location.pathname === ` + strconv.Quote(path))
}

// The console in a real browser: log in, start an agent, watch its tokens
// arrive, get a typed error, cancel a turn in flight, watch the next turn's
// tokens arrive on the same page, reload mid-turn and find nothing lost;
// then approve a pending call, see a child appear in the tree and finish,
// reload while it runs, and see a detached child's new turn in the tree as
// it runs.
func TestBrowserWatchesTokensApprovesACallFollowsAChildCancelsATurnAndLosesNothingOnReload(t *testing.T) {
	e := newEnv(t, envOptions{wordDelay: 60 * time.Millisecond, console: Options{Token: testToken}})
	p := browsertest.Open(t)
	require.NoError(t, os.MkdirAll(docs, 0o755))

	// Log in, and start an agent from the list page.
	signIn(p, e, "/agents")
	p.Wait(`!!document.querySelector("#agents")`)
	p.Click("#new-agent summary")
	p.Set("#new-agent input[name=id]", "browser")
	p.Set("#new-agent input[name=tools]", "calculate")
	p.Set("#new-agent textarea[name=first]", "/say "+sentence("a", 40))
	p.Click("#new-agent button")
	p.Wait(`location.pathname === "/agents/browser"`)

	// Tokens arrive while the step is still calling the model.
	p.Wait(liveHas("1-1", "a05"))
	state := p.Eval(`document.getElementById('live-1-1').textContent + '|' + document.querySelectorAll('#turn-1 .msg.assistant').length`)
	require.True(t, strings.HasPrefix(state, "a01 a02 a03 a04 a05"), state)
	require.True(t, strings.HasSuffix(state, "|0"), "no settled message yet: %s", state)
	p.Eval(`(window.scrollTo(0, 0), "")`)
	p.Screenshot(filepath.Join(docs, "console-live.png"))
	p.Wait(`(() => { const m = document.querySelector('#turn-1 .msg.assistant'); return !!m && m.textContent.includes('a40'); })()`)
	require.Equal(t, sentence("a", 40), p.Eval(`document.querySelector('#turn-1 .msg.assistant .md').textContent.trim()`))
	require.Equal(t, "0", p.Eval(`String(document.querySelectorAll('.live').length)`), "the live text gave way to the message")
	p.Wait(`document.getElementById('status-chip').textContent === 'idle'`)

	// The server's typed error reaches the page.
	p.Click("#send-followup")
	p.Wait(`(() => { const r = document.getElementById('result'); return r.classList.contains('error') && r.textContent.includes('(empty_message)'); })()`)

	// Cancel the turn in flight.
	p.Set("#message-form textarea", "/say "+sentence("b", 80))
	p.Click("#send-followup")
	p.Wait(liveHas("2-1", "b03"))
	p.Set("#cancel-form input[name=cause]", "seen enough")
	p.Click("#cancel-turn")
	p.Wait(`!!document.querySelector('#turn-2 .tag.end.canceled')`)
	turn2 := p.Eval(`document.getElementById('turn-2').textContent`)
	require.Contains(t, turn2, "cancel requested: seen enough")
	require.Equal(t, "0", p.Eval(`String(document.querySelectorAll('#turn-2 .msg.assistant').length)`), "the answer never finished")
	require.Contains(t, turn2, "model call canceled")
	p.Wait(`document.getElementById('status-chip').textContent === 'idle'`)

	// The next call streams live to the same page, whole, while the
	// canceled call's tail may still be streaming; then a reload mid-turn
	// brings the whole call so far back.
	p.Set("#message-form textarea", "/say "+sentence("c", 50))
	p.Click("#send-followup")
	p.Wait(liveHas("3-1", "c06"))
	require.True(t, strings.HasPrefix(p.Eval(`document.getElementById('live-3-1').textContent`), "c01 c02 c03"),
		"the call after a canceled one streams live from its first token")
	p.Do(chromedp.Reload())
	p.Wait(liveHas("3-1", "c06"))
	require.True(t, strings.HasPrefix(p.Eval(`document.getElementById('live-3-1').textContent`), "c01 c02 c03"),
		"after the reload the live text starts at the call's first token")
	p.Wait(`(() => { const m = document.querySelector('#turn-3 .msg.assistant'); return !!m && m.textContent.includes('c50'); })()`)
	require.Equal(t, sentence("c", 50), p.Eval(`document.querySelector('#turn-3 .msg.assistant .md').textContent.trim()`))
	p.Wait(`document.getElementById('status-chip').textContent === 'idle'`)
	p.Screenshot(filepath.Join(docs, "console-agent.png"))

	// What live updates built equals what the server renders from the log.
	livePage := p.Eval(`document.getElementById('transcript').innerText`)
	p.Go(e.web.URL + "/agents/browser")
	require.Equal(t, livePage, p.Eval(`document.getElementById('transcript').innerText`))
	for turn := 1; turn <= 3; turn++ {
		require.Equal(t, "1", p.Eval(`String(document.querySelectorAll('#turn-`+strconv.Itoa(turn)+`').length)`))
	}

	// The scrubber, moved back to the end of turn 1, shows the session as
	// it was then, read-only; the banner leads back to live.
	end1 := strings.TrimPrefix(p.Eval(`document.querySelector('#turn-1 a.asof').getAttribute('href')`), "?at=")
	p.Eval(`(() => { const s = document.getElementById('scrub-at'); s.value = '` + end1 + `'; s.dispatchEvent(new Event('change')); return ''; })()`)
	p.Wait(`location.search === '?at=` + end1 + `' && !!document.getElementById('scrubbed')`)
	require.Equal(t, "1|0|0|0", p.Eval(`[document.querySelectorAll('#turn-1').length, document.querySelectorAll('#turn-2, #turn-3').length,
		document.querySelectorAll('form[data-act]:not(#fork-form)').length, document.querySelectorAll('.live').length].join('|')`),
		"turn 1 only, no form that acts on the agent (the fork form starts another), nothing live")
	require.Equal(t, "1", p.Eval(`String(document.querySelectorAll('#fork-form').length)`), "a scrubbed page offers to fork from there")
	require.Contains(t, p.Eval(`document.getElementById('scrubbed').textContent`), "Viewing the session as of seq "+end1)
	p.Eval(`(window.scrollTo(0, 0), "")`)
	p.Screenshot(filepath.Join(docs, "console-replay.png"))
	p.Click("#back-to-live")
	p.Wait(`location.search === '' && document.querySelectorAll('#turn-3').length === 1 && !!document.getElementById('message-form')`)

	p.Go(e.web.URL + "/agents")
	p.Wait(`!!document.querySelector('#agents tr[data-agent="browser"]')`)
	p.Screenshot(filepath.Join(docs, "console-list.png"))

	orchestrate(t, e, p)
}

// orchestrate drives the people-and-children part of the browser test.
func orchestrate(t *testing.T, e *env, p *browsertest.Page) {
	ctx := ctxT(t, 2*time.Minute)
	e.create(ctx, "orchestrator", `/tool echo {"text":"deploy v2 to production"}`, signals.AgentOptions{
		Tools: []string{"echo", signals.SpawnTool}, Approval: &signals.ApprovalPolicy{Tools: []string{"echo"}}})
	p.Go(e.web.URL + "/agents/orchestrator")

	// The card shows the call and its arguments; approving it runs the call.
	p.Wait(`!!document.querySelector('#status .card.pending form.decide button.approve')`)
	card := p.Eval(`document.querySelector('#status .card.pending').innerText`)
	require.Contains(t, card, "echo")
	require.Contains(t, card, `{"text":"deploy v2 to production"}`)
	require.Contains(t, card, "waiting")
	require.NotEmpty(t, p.Eval(`document.querySelector('#status form.decide input[name=csrf]').value`), "the live card carries the session's token")
	p.Eval(`(window.scrollTo(0, 0), "")`)
	p.Screenshot(filepath.Join(docs, "console-approval.png"))
	p.Set("#status form.decide textarea", "checked the diff")
	p.Click("#status form.decide button.approve")
	p.Wait(`!document.querySelector('#status .card.pending')`)
	p.Wait(`(() => { const t = document.getElementById('turn-1'); return !!t && t.innerText.includes('echo: deploy v2 to production'); })()`)
	p.Wait(`document.getElementById('status-chip').textContent === 'idle'`)

	// A child appears in the tree; reloaded while it runs, the page still
	// shows it; it finishes and reports.
	p.Set("#message-form textarea", `/tool spawn_agent {"task":"/say `+sentence("d", 60)+`","mode":"wait"}`)
	p.Click("#send-followup")
	p.Wait(`!!document.querySelector('#children li[data-child]')`)
	child := p.Eval(`document.querySelector('#children li[data-child]').dataset.child`)
	p.Do(chromedp.Reload())
	p.Wait(`!!document.querySelector('#children li[data-child="` + child + `"]')`)
	p.Wait(`document.querySelector('#children li[data-child]').innerText.includes('1 reported')`)
	p.Wait(`document.getElementById('status-chip').textContent === 'idle'`)
	require.Contains(t, p.Eval(`document.getElementById('transcript').innerText`), sentence("d", 60), "the child's answer is the spawn call's result")
	p.Screenshot(filepath.Join(docs, "console-tree.png"))

	// The child's page links back to its parent.
	p.Click(`#children li[data-child] a`)
	p.Wait(`location.pathname === "/agents/` + url.PathEscape(child) + `"`)
	p.Wait(`!!document.getElementById('parent-link')`)
	require.Equal(t, "orchestrator", p.Eval(`document.getElementById('parent-link').textContent`))

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
	p.Go(e.web.URL + "/agents/orchestrator")
	entry := `document.querySelector('#children li[data-child="` + detached + `"]')`
	p.Wait(`!!` + entry + ` && ` + entry + `.querySelector('.chip').textContent === 'idle'`)
	_, err = dh.Followup(ctx, "/say "+sentence("e", 80))
	require.NoError(t, err)
	p.Wait(entry + `.querySelector('.chip').textContent === 'running' && ` + entry + `.innerText.includes('turn 2')`)
}
