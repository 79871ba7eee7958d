package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
)

// contents are the contents of a conversation's user and assistant
// messages, in order.
func contents(msgs []eventlog.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == eventlog.RoleUser || m.Role == eventlog.RoleAssistant {
			out = append(out, m.Content)
		}
	}
	return out
}

func TestRewindingFromTheConsoleMarksTheTurnsRewoundPastAndTheNextTurnGoesOnFromThere(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, 2*time.Minute)
	h, _ := e.twoTurns(ctx, "back")
	events := e.stream(ctx, "back", nil, "?from=0")
	until(t, ctx, events, func(ev sse) bool { return ev.Event == "status" })

	r := e.act("/agents/back/rewind", url.Values{"to_turn": {"1"}})
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	body := r.JSON(t)
	require.Equal(t, "rewind", body["done"])
	require.EqualValues(t, 1, body["turn"])
	require.EqualValues(t, 2, body["past"])
	seq := int64(body["seq"].(float64))
	require.Positive(t, seq)

	// A live page gets turn 2 again, set apart, and the marker.
	var turn2, marker string
	until(t, ctx, events, func(ev sse) bool {
		if ev.Event == "block" {
			switch id, html := blockOf(t, ev); {
			case id == "turn-2" && strings.Contains(html, "rewound-past"):
				turn2 = html
			case strings.Contains(html, "rewound to the end of turn 1"):
				marker = html
			}
		}
		return turn2 != "" && marker != ""
	})
	require.Contains(t, turn2, "no longer in the conversation")
	require.Contains(t, turn2, "second answer", "the turn rewound past stays readable")
	require.NotContains(t, turn2, "data-rewind", "a turn rewound past is not offered as a rewind target")
	require.Contains(t, marker, "rewound to the end of turn 1 by console: turn 2 is no longer in the conversation")

	page := e.get("/agents/back").Body
	require.Contains(t, page, `data-rewind="1"`, "turn 1 can be rewound to")
	require.Contains(t, page, `id="rewind-form"`, "the operator's panel rewinds too, without the page's script")
	require.Regexp(t, `<article class="turn end-completed rewound-past" id="turn-2"`, page)
	require.Less(t, strings.Index(page, `id="turn-2"`), strings.Index(page, "rewound to the end of turn 1 by console"),
		"the marker stands where the rewind happened, after the turn it went back past")

	// The next turn goes on from the end of turn 1.
	_, err := h.Followup(ctx, "/say third answer", agent.Acknowledged())
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	l, err := h.Lineage(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"/say first answer", "first answer", "/say third answer", "third answer"}, contents(l.Conversation))
	page = e.get("/agents/back").Body
	require.Contains(t, page, `id="turn-3" data-last=`)
	require.Contains(t, page, `data-rewind="3"`)
	require.NotContains(t, page, `class="turn end-completed rewound-past" id="turn-3"`)
}

func TestARewindTheAgentOrTheFormRefusesSaysWhyAndRecordsNothing(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, 2*time.Minute)
	h, _ := e.twoTurns(ctx, "stays")
	require.Equal(t, http.StatusOK, e.act("/agents/stays/rewind", url.Values{"to_turn": {"1"}}).Status)
	before := logLen(t, ctx, h)

	for _, c := range []struct {
		name   string
		form   url.Values
		status int
		code   string
		says   string
	}{
		{"no turn", url.Values{}, http.StatusBadRequest, "bad_input", "want a turn number"},
		{"negative", url.Values{"to_turn": {"-1"}}, http.StatusBadRequest, "bad_input", "want a turn number"},
		{"not a number", url.Values{"to_turn": {"one"}}, http.StatusBadRequest, "bad_input", "want a turn number"},
		{"huge", url.Values{"to_turn": {strings.Repeat("9", 30)}}, http.StatusBadRequest, "bad_input", "want a turn number"},
		{"not ended", url.Values{"to_turn": {"7"}}, http.StatusConflict, "invalid_rewind", "turn 7 has not ended"},
		{"rewound past", url.Values{"to_turn": {"2"}}, http.StatusConflict, "rewind_lost", "fork the agent"},
	} {
		r := e.act("/agents/stays/rewind", c.form)
		require.Equal(t, c.status, r.Status, "%s: %s", c.name, r.Body)
		require.Equal(t, c.code, r.JSON(t)["code"], c.name)
		require.Contains(t, r.JSON(t)["error"], c.says, c.name)
	}
	same := e.act("/agents/stays/rewind", url.Values{"to_turn": {"1"}})
	require.Equal(t, http.StatusOK, same.Status, same.Body)
	require.EqualValues(t, -1, same.JSON(t)["seq"], "a rewind to where the agent stands records nothing")

	// A browser gets the reason on a page; a stale form and a reader are refused.
	jar, _ := e.login()
	stale := e.do(http.MethodPost, "/agents/stays/rewind", url.Values{"csrf": {"stale"}, "to_turn": {"0"}}, nil, jar)
	require.Equal(t, http.StatusForbidden, stale.Status)
	require.Contains(t, stale.Body, "the form is stale")
	page := e.do(http.MethodPost, "/agents/stays/rewind", url.Values{"to_turn": {"7"}},
		map[string]string{"Authorization": "Bearer " + testToken}, nil)
	require.Equal(t, http.StatusConflict, page.Status)
	require.Contains(t, page.Body, "turn 7 has not ended")
	require.Equal(t, http.StatusNotFound, e.act("/agents/nobody/rewind", url.Values{"to_turn": {"0"}}).Status)
	require.Equal(t, before, logLen(t, ctx, h), "nothing was recorded")

	require.NoError(t, h.Dispose(ctx, "done"))
	closed := e.act("/agents/stays/rewind", url.Values{"to_turn": {"0"}})
	require.Equal(t, http.StatusConflict, closed.Status, closed.Body)
	require.Equal(t, "closed", closed.JSON(t)["code"])
}

func TestAReadOnlyConsoleShowsTheRewindAndOffersNoWayToRewind(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := ctxT(t, 2*time.Minute)
	h, _ := e.twoTurns(ctx, "watched")
	_, err := h.Rewind(ctx, 0, agent.RewoundBy("ops"))
	require.NoError(t, err)
	page := e.get("/agents/watched")
	require.Equal(t, http.StatusOK, page.Status)
	require.Contains(t, page.Body, "rewound to the end of turn 0 by ops: turns 1 to 2 are no longer in the conversation")
	require.NotContains(t, page.Body, `id="rewind-form"`)
	require.NotContains(t, page.Body, "data-csrf", "the page's script makes no rewind form for a reader")
	r := e.do(http.MethodPost, "/agents/watched/rewind", url.Values{"to_turn": {"0"}}, map[string]string{"Accept": "application/json"}, nil)
	require.Equal(t, http.StatusForbidden, r.Status, r.Body)
	require.Equal(t, "read_only", r.JSON(t)["code"])
}
