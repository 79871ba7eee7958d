package console

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/internal/browsertest"
)

// In a real browser: scrub an agent back to the end of its first turn,
// fork it there with a new first message, land on the fork, follow its
// lineage to the diff view and see where the two conversations part; a
// fork inside a step is refused on the page, naming where one can be
// taken. The diff page's screenshot is docs/console-fork.png.
func TestBrowserForksFromAScrubbedPositionLandsOnTheForkAndComparesItWithItsSource(t *testing.T) {
	e := newEnv(t, envOptions{console: Options{Token: testToken}})
	ctx := ctxT(t, 3*time.Minute)
	src, end1 := e.twoTurns(ctx, "trunk")
	torn := seqOf(t, ctx, src, func(e eventlog.Event) bool { _, ok := e.(eventlog.StepStart); return ok })
	p := browsertest.Open(t)
	require.NoError(t, os.MkdirAll(docs, 0o755))

	signIn(p, e, "/agents/trunk")
	p.Wait(`location.pathname === "/agents/trunk" && !!document.getElementById('scrub-at')`)
	require.Equal(t, "0", p.Eval(`String(document.querySelectorAll('#fork-form').length)`), "the live page has no fork form")

	// Scrub back to where turn 1 settled (once the page's script listens).
	p.Wait(`document.readyState === 'complete'`)
	at := fmt.Sprint(end1)
	p.Eval(`(() => { const s = document.getElementById('scrub-at'); s.value = '` + at + `'; s.dispatchEvent(new Event('change')); return ''; })()`)
	p.Wait(`location.search === '?at=` + at + `' && !!document.getElementById('fork-form')`)
	require.Contains(t, p.Eval(`document.getElementById('fork-here').textContent`), "Fork from seq "+at)

	// A position inside a step is refused on the page, the reason shown.
	p.Set("#fork-form input[name=at]", fmt.Sprint(torn))
	p.Click("#fork-here")
	p.Wait(`document.getElementById('fork-result').classList.contains('error')`)
	refusal := p.Eval(`document.getElementById('fork-result').textContent`)
	require.Contains(t, refusal, "inside a step")
	require.Contains(t, refusal, "nearest positions that can:")
	require.Contains(t, refusal, "(fork_position)")
	require.Equal(t, "/agents/trunk", p.Eval(`location.pathname`), "the page stays on the source")

	// Fork at the scrubbed position with a first message of its own.
	p.Set("#fork-form input[name=at]", at)
	p.Set("#fork-form input[name=new_id]", "branch")
	p.Set("#fork-form textarea[name=append]", "/say a different second answer")
	p.Click("#fork-here")
	p.Wait(`location.pathname === "/agents/branch"`)
	answers := `[...document.querySelectorAll('#transcript .msg.assistant .md')].map(m => m.textContent.trim())`
	p.Wait(answers + `.includes('a different second answer')`)
	p.Wait(`document.getElementById('status-chip').textContent === 'idle'`)
	require.Contains(t, p.Eval(`document.getElementById('fork-of').innerText`), "Fork of trunk at position "+at)
	require.Equal(t, "a different second answer", p.Eval(answers+`.join('|')`), "the fork's page shows its own turns, not the source's")

	// Its lineage leads to the diff view.
	p.Click("#compare-source")
	p.Wait(`location.pathname === "/diff" && !!document.getElementById('diff-rows')`)
	summary := p.Eval(`document.getElementById('diff-summary').textContent`)
	require.True(t, strings.HasPrefix(summary, "The conversations are the same up to message"), summary)
	cells := p.Eval(`[...document.querySelectorAll('#diff-rows tbody tr')].map(r => r.querySelector('td.a').innerText + ' | ' + r.querySelector('td.b').innerText).join('\n')`)
	require.Contains(t, cells, "/say second answer")
	require.Contains(t, cells, "/say a different second answer")
	first := p.Eval(`document.querySelector('#diff-rows tbody tr td.a').innerText + ' || ' + document.querySelector('#diff-rows tbody tr td.b').innerText`)
	require.Contains(t, first, "second answer || ", "the first row is where they part: ")
	require.Contains(t, first, "a different second answer")
	require.Contains(t, p.Eval(`document.getElementById('diff-shared').innerText`), "first answer")
	p.Eval(`(window.scrollTo(0, 0), "")`)
	p.Screenshot(filepath.Join(docs, "console-fork.png"))

	// The source was left as it was: two turns, no third.
	p.Go(e.web.URL + "/agents/trunk")
	p.Wait(`!!document.getElementById('turn-2')`)
	require.Equal(t, "0", p.Eval(`String(document.querySelectorAll('#turn-3').length)`))
}
