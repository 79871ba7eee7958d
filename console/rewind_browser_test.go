package console

import (
	"path/filepath"
	"regexp"
	"testing"
	"time"

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
	p := browsertest.Open(t)

	signIn(p, e, "/agents/rewinder")
	p.Wait(`location.pathname === "/agents/rewinder" && !!document.querySelector('#turn-1 form.rewind button')`)
	require.Equal(t, "Rewind to here", p.Eval(`document.querySelector('#turn-1 form.rewind button').textContent`))
	require.NotEmpty(t, p.Eval(`document.querySelector('#turn-1 form.rewind input[name=csrf]').value`), "the form carries the session's token")

	// The page asks before rewinding; the test answers yes.
	p.Eval(`(window.confirm = () => true, '')`)
	p.Click("#turn-1 form.rewind button")
	p.Wait(`document.getElementById('result').classList.contains('ok')`)
	require.Regexp(t, `^rewound to the end of turn 1 \(log #\d+\)$`, p.Eval(`document.getElementById('result').textContent`))
	p.Wait(`!!document.querySelector('#turn-2.rewound-past') && !!document.querySelector('#transcript .note.rewind')`)
	require.Equal(t, "rewound to the end of turn 1 by console: turn 2 is no longer in the conversation, which goes on from the end of turn 1",
		p.Eval(`document.querySelector('#transcript .note.rewind').textContent`))
	require.Contains(t, p.Eval(`document.querySelector('#turn-2 .tag.rewound').textContent`), "no longer in the conversation")
	require.Contains(t, p.Eval(`document.getElementById('turn-2').innerText`), "second answer", "turn 2 stays readable")
	require.Equal(t, "0", p.Eval(`String(document.querySelectorAll('#turn-2 form.rewind').length)`), "a turn rewound past is no rewind target")
	require.Equal(t, "turn-2|gap", p.Eval(`(() => { const n = document.querySelector('#transcript .note.rewind').closest('section.gap'); return n.previousElementSibling.id + '|' + n.className; })()`),
		"the marker stands where the rewind happened, after the turn it went back past")

	// The next turn goes on from the end of turn 1.
	p.Set("#message-form textarea", "/say third answer")
	p.Click("#send-followup")
	answers := `[...document.querySelectorAll('#transcript .msg.assistant .md')].map(m => m.textContent.trim())`
	p.Wait(answers + `.includes('third answer') && document.getElementById('status-chip').textContent === 'idle'`)
	p.Wait(`!!document.querySelector('#turn-3 form.rewind')`)
	msgs := regexp.MustCompile(`(\d+) msgs`)
	ctxOf := func(turn string) string {
		t.Helper()
		m := msgs.FindStringSubmatch(p.Eval(`document.querySelector('#` + turn + ` .ctx').textContent`))
		require.Len(t, m, 2, turn)
		return m[1]
	}
	require.Equal(t, ctxOf("turn-2"), ctxOf("turn-3"), "turn 3's request holds turn 1's conversation and its own message, as turn 2's did")
	require.Equal(t, "0", p.Eval(`String(document.querySelectorAll('#turn-3.rewound-past').length)`))
	l, err := h.Lineage(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"/say first answer", "first answer", "/say third answer", "third answer"}, contents(l.Conversation))

	p.Eval(`(window.scrollTo(0, 0), "")`)
	p.Screenshot(filepath.Join(docs, "console-rewind.png"))
}
