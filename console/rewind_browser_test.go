package console

import (
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/internal/browsertest"
)

// In a real browser: an operator rewinds a two-turn agent to the end of
// turn 1 from the turn's own "Rewind to here", sees the marker where the
// rewind happened and turn 2 set apart, still readable; the next turn's
// request carries the conversation turn 1 ended with (as many messages as
// turn 2's did, not two more). The page's screenshot is
// docs/console-rewind.png.
func TestBrowserRewindsAnAgentToATurnEndAndTheNextTurnGoesOnFromThere(t *testing.T) {
	e := newEnv(t, envOptions{console: Options{Token: testToken}})
	ctx := ctxT(t, 3*time.Minute)
	h, _ := e.twoTurns(ctx, "rewinder")
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

	do(chromedp.Navigate(e.web.URL+"/login?next=/agents/rewinder"),
		chromedp.SendKeys(css("input[name=token]"), testToken),
		chromedp.Click(css(".login button")))
	wait(`location.pathname === "/agents/rewinder" && !!document.querySelector('#turn-1 form.rewind button')`)
	require.Equal(t, "Rewind to here", eval(`document.querySelector('#turn-1 form.rewind button').textContent`))
	require.NotEmpty(t, eval(`document.querySelector('#turn-1 form.rewind input[name=csrf]').value`), "the form carries the session's token")

	// The page asks before rewinding; the test answers yes.
	eval(`(window.confirm = () => true, '')`)
	do(chromedp.Click(css("#turn-1 form.rewind button")))
	wait(`document.getElementById('result').classList.contains('ok')`)
	require.Regexp(t, `^rewound to the end of turn 1 \(log #\d+\)$`, eval(`document.getElementById('result').textContent`))
	wait(`!!document.querySelector('#turn-2.rewound-past') && !!document.querySelector('#transcript .note.rewind')`)
	require.Equal(t, "rewound to the end of turn 1 by console: turn 2 is no longer in the conversation, which goes on from the end of turn 1",
		eval(`document.querySelector('#transcript .note.rewind').textContent`))
	require.Contains(t, eval(`document.querySelector('#turn-2 .tag.rewound').textContent`), "no longer in the conversation")
	require.Contains(t, eval(`document.getElementById('turn-2').innerText`), "second answer", "turn 2 stays readable")
	require.Equal(t, "0", eval(`String(document.querySelectorAll('#turn-2 form.rewind').length)`), "a turn rewound past is no rewind target")
	require.Equal(t, "turn-2|gap", eval(`(() => { const n = document.querySelector('#transcript .note.rewind').closest('section.gap'); return n.previousElementSibling.id + '|' + n.className; })()`),
		"the marker stands where the rewind happened, after the turn it went back past")

	// The next turn goes on from the end of turn 1.
	do(chromedp.SetValue(css("#message-form textarea"), "/say third answer"), chromedp.Click(css("#send-followup")))
	answers := `[...document.querySelectorAll('#transcript .msg.assistant .md')].map(m => m.textContent.trim())`
	wait(answers + `.includes('third answer') && document.getElementById('status-chip').textContent === 'idle'`)
	wait(`!!document.querySelector('#turn-3 form.rewind')`)
	msgs := regexp.MustCompile(`(\d+) msgs`)
	ctxOf := func(turn string) string {
		t.Helper()
		m := msgs.FindStringSubmatch(eval(`document.querySelector('#` + turn + ` .ctx').textContent`))
		require.Len(t, m, 2, turn)
		return m[1]
	}
	require.Equal(t, ctxOf("turn-2"), ctxOf("turn-3"), "turn 3's request holds turn 1's conversation and its own message, as turn 2's did")
	require.Equal(t, "0", eval(`String(document.querySelectorAll('#turn-3.rewound-past').length)`))
	l, err := h.Lineage(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"/say first answer", "first answer", "/say third answer", "third answer"}, contents(l.Conversation))

	eval(`(window.scrollTo(0, 0), "")`)
	browsertest.Screenshot(t, b, filepath.Join(docs, "console-rewind.png"))
}
