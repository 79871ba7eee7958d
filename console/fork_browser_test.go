package console

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
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
	b := browsertest.New(t)
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		require.NoError(t, chromedp.Do(b, steps...))
	}
	wait := func(cond string) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			_, err := chromedp.Run(b, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(time.Until(deadline))))
			if err == nil {
				return
			}
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
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	require.NoError(t, os.MkdirAll(docs, 0o755))

	do(chromedp.Navigate(e.web.URL+"/login?next=/agents/trunk"),
		chromedp.SendKeys(css("input[name=token]"), testToken),
		chromedp.Click(css(".login button")))
	wait(`location.pathname === "/agents/trunk" && !!document.getElementById('scrub-at')`)
	require.Equal(t, "0", eval(`String(document.querySelectorAll('#fork-form').length)`), "the live page has no fork form")

	// Scrub back to where turn 1 settled (once the page's script listens).
	wait(`document.readyState === 'complete'`)
	at := fmt.Sprint(end1)
	eval(`(() => { const s = document.getElementById('scrub-at'); s.value = '` + at + `'; s.dispatchEvent(new Event('change')); return ''; })()`)
	wait(`location.search === '?at=` + at + `' && !!document.getElementById('fork-form')`)
	require.Contains(t, eval(`document.getElementById('fork-here').textContent`), "Fork from seq "+at)

	// A position inside a step is refused on the page, the reason shown.
	eval(`(document.querySelector('#fork-form input[name=at]').value = '` + fmt.Sprint(torn) + `', '')`)
	do(chromedp.Click(css("#fork-here")))
	wait(`document.getElementById('fork-result').classList.contains('error')`)
	refusal := eval(`document.getElementById('fork-result').textContent`)
	require.Contains(t, refusal, "inside a step")
	require.Contains(t, refusal, "nearest positions that can:")
	require.Contains(t, refusal, "(fork_position)")
	require.Equal(t, "/agents/trunk", eval(`location.pathname`), "the page stays on the source")

	// Fork at the scrubbed position with a first message of its own.
	eval(`(document.querySelector('#fork-form input[name=at]').value = '` + at + `', '')`)
	do(chromedp.SetValue(css("#fork-form input[name=new_id]"), "branch"),
		chromedp.SetValue(css("#fork-form textarea[name=append]"), "/say a different second answer"),
		chromedp.Click(css("#fork-here")))
	wait(`location.pathname === "/agents/branch"`)
	answers := `[...document.querySelectorAll('#transcript .msg.assistant .md')].map(m => m.textContent.trim())`
	wait(answers + `.includes('a different second answer')`)
	wait(`document.getElementById('status-chip').textContent === 'idle'`)
	require.Contains(t, eval(`document.getElementById('fork-of').innerText`), "Fork of trunk at position "+at)
	require.Equal(t, "a different second answer", eval(answers+`.join('|')`), "the fork's page shows its own turns, not the source's")

	// Its lineage leads to the diff view.
	do(chromedp.Click(css("#compare-source")))
	wait(`location.pathname === "/diff" && !!document.getElementById('diff-rows')`)
	summary := eval(`document.getElementById('diff-summary').textContent`)
	require.True(t, strings.HasPrefix(summary, "The conversations are the same up to message"), summary)
	cells := eval(`[...document.querySelectorAll('#diff-rows tbody tr')].map(r => r.querySelector('td.a').innerText + ' | ' + r.querySelector('td.b').innerText).join('\n')`)
	require.Contains(t, cells, "/say second answer")
	require.Contains(t, cells, "/say a different second answer")
	first := eval(`document.querySelector('#diff-rows tbody tr td.a').innerText + ' || ' + document.querySelector('#diff-rows tbody tr td.b').innerText`)
	require.Contains(t, first, "second answer || ", "the first row is where they part: ")
	require.Contains(t, first, "a different second answer")
	require.Contains(t, eval(`document.getElementById('diff-shared').innerText`), "first answer")
	eval(`(window.scrollTo(0, 0), "")`)
	browsertest.Screenshot(t, b, filepath.Join(docs, "console-fork.png"))

	// The source was left as it was: two turns, no third.
	do(chromedp.Navigate(e.web.URL + "/agents/trunk"))
	wait(`!!document.getElementById('turn-2')`)
	require.Equal(t, "0", eval(`String(document.querySelectorAll('#turn-3').length)`))
}
