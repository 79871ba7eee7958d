package console

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// operatorEnv is a console with the operator token whose pages the test
// reads as the operator: a request with neither a session nor a bearer
// header gets the bearer token (once a token is set, every page needs it).
func operatorEnv(t *testing.T) *env {
	e := newEnv(t, envOptions{console: Options{Token: testToken}})
	e.web.Close()
	h := e.srv.Handler()
	e.web = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" && r.Header.Get("Cookie") == "" {
			r.Header.Set("Authorization", "Bearer "+testToken)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(e.web.Close)
	return e
}

func TestMessagesAreAcknowledgedByTheWorkflowAndShownInTheInbox(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, time.Minute)
	e.running(ctx, "busy")

	for kind, content := range map[string]string{"steer": "steer me", "inject": "quietly", "followup": "/say later"} {
		r := e.act("/agents/busy/message", url.Values{"kind": {kind}, "content": {content}})
		require.Equal(t, http.StatusOK, r.Status, r.Body)
		body := r.JSON(t)
		require.Equal(t, kind, body["done"])
		require.NotEmpty(t, body["message_id"])
		require.GreaterOrEqual(t, body["seq"], float64(0), "an update answers with the inbox event's position")
	}
	page := e.get("/agents/busy")
	nextStep := page.Body[strings.Index(page.Body, `id="inbox-next-step"`):]
	require.Contains(t, nextStep[:strings.Index(nextStep, "</ul>")], "steer me")
	require.Contains(t, nextStep[:strings.Index(nextStep, "</ul>")], "quietly")
	require.Contains(t, page.Body, `<span class="tag">no wake</span>`, "inject does not wake")
	nextTurn := page.Body[strings.Index(page.Body, `id="inbox-next-turn"`):]
	require.Contains(t, nextTurn[:strings.Index(nextTurn, "</ul>")], "/say later")
}

func TestMessageErrorsAreTypedAndNothingIsSent(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, time.Minute)
	h := e.running(ctx, "strict")
	cases := []struct {
		name    string
		path    string
		form    url.Values
		status  int
		code    string
		message string
	}{
		{"empty", "/agents/strict/message", url.Values{"kind": {"followup"}, "content": {"  "}}, 400, "empty_message", "message content is empty"},
		{"too large", "/agents/strict/message", url.Values{"kind": {"steer"}, "content": {strings.Repeat("x", signals.MaxMessageBytes+1)}},
			413, "message_too_large", "message content is too large"},
		{"not UTF-8", "/agents/strict/message", url.Values{"kind": {"inject"}, "content": {"bad \xff"}}, 400, "invalid_utf8", "not valid UTF-8"},
		{"unknown kind", "/agents/strict/message", url.Values{"kind": {"shout"}, "content": {"hi"}}, 400, "bad_input", `kind "shout"`},
		{"missing agent", "/agents/nobody/message", url.Values{"kind": {"followup"}, "content": {"hi"}}, 404, "not_found", "agent not found"},
		{"cause too large", "/agents/strict/cancel", url.Values{"cause": {strings.Repeat("c", signals.MaxCauseBytes+1)}}, 400, "cause_too_large", "cause is too large"},
		{"start without a message", "/agents", url.Values{"id": {"new"}, "first": {""}}, 400, "empty_message", "message content is empty"},
		{"start an existing ID", "/agents", url.Values{"id": {"strict"}, "first": {"hi"}}, 409, "already_exists", "agent already exists"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.act(tc.path, tc.form)
			require.Equal(t, tc.status, r.Status, r.Body)
			body := r.JSON(t)
			require.Equal(t, tc.code, body["code"])
			require.Contains(t, body["error"], tc.message)
		})
	}
	st, err := h.Status(ctx)
	require.NoError(t, err)
	require.Empty(t, st.NextTurn)
	require.Empty(t, st.NextStep)
	require.True(t, st.InTurn, "nothing reached the agent")
}

// The workflow's own rejections reach the page typed: a sentinel the
// client maps from a validator's ApplicationError type keeps its code.
func TestTheWorkflowsRejectionsKeepTheirCodes(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code string
	}{
		{signals.ErrDisposed, "disposed"}, {signals.ErrDuplicateID, "duplicate_id"}, {signals.ErrContinuing, "continuing"},
		{signals.ErrAlreadyIdle, "already_idle"}, {agent.ErrRejected, "rejected"}, {agent.ErrClosed, "closed"},
		{errors.New("connection refused"), "temporal"},
	} {
		wrapped := fmt.Errorf("followup agent a1: %w", fmt.Errorf("%w: validator said no", tc.err))
		_, code := classify(wrapped)
		require.Equal(t, tc.code, code, tc.err.Error())
	}
}

func TestCancelEndsTheTurnAndKeepsOrDiscardsTheInbox(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, time.Minute)
	for _, keep := range []bool{true, false} {
		id := fmt.Sprintf("cancel-keep-%t", keep)
		h := e.running(ctx, id)
		r := e.act("/agents/"+id+"/message", url.Values{"kind": {"followup"}, "content": {"/say after the cancel"}})
		require.Equal(t, http.StatusOK, r.Status, r.Body)
		form := url.Values{"cause": {"operator says stop"}}
		if keep {
			form.Set("keep_inbox", "1")
		}
		r = e.act("/agents/"+id+"/cancel", form)
		require.Equal(t, http.StatusOK, r.Status, r.Body)
		require.Equal(t, "cancel", r.JSON(t)["done"])
		_, err := h.WaitIdle(ctx)
		require.NoError(t, err)

		log, err := h.Log(ctx)
		require.NoError(t, err)
		evs, err := eventlog.DecodeAll(log)
		require.NoError(t, err)
		page := e.get("/agents/" + id)
		require.Contains(t, page.Body, "cancel requested: operator says stop")
		require.Contains(t, page.Body, `<span class="tag end canceled">canceled</span>`)
		if keep {
			require.Contains(t, page.Body, `id="turn-2"`, "the kept followup opened the next turn")
			require.Contains(t, page.Body, "after the cancel")
		} else {
			require.NotContains(t, page.Body, `id="turn-2"`)
			require.Contains(t, page.Body, "discarded (canceled): operator says stop: /say after the cancel")
		}
		require.NotEmpty(t, evs)
	}
}

func TestSelectModelSwitchesFromTheNextStep(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, time.Minute)
	h := e.idle(ctx, "switch", "/say one", signals.AgentOptions{})
	r := e.act("/agents/switch/model", url.Values{"provider": {"scripted"}, "model": {"m9"}})
	require.Equal(t, http.StatusOK, r.Status, r.Body)
	require.Equal(t, "scripted/m9", r.JSON(t)["model"])
	_, err := h.Followup(ctx, "/say two", agent.Acknowledged())
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		return strings.Contains(e.get("/agents/switch").Body, `<span class="model">scripted/m9</span>`)
	}, 20*time.Second, 50*time.Millisecond)
	require.Contains(t, e.get("/agents/switch").Body, "model switched to scripted/m9 from the next step")
}

func TestDisposeEndsTheAgentAndLaterActionsSayItIsClosed(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, time.Minute)
	e.idle(ctx, "done", "/say bye", signals.AgentOptions{})
	r := e.act("/agents/done/dispose", url.Values{"cause": {"finished"}})
	require.Equal(t, http.StatusOK, r.Status, r.Body)

	for _, path := range []string{"/agents/done/message", "/agents/done/cancel", "/agents/done/model", "/agents/done/dispose"} {
		r := e.act(path, url.Values{"kind": {"followup"}, "content": {"anyone?"}})
		require.Equal(t, http.StatusConflict, r.Status, path)
		require.Equal(t, "closed", r.JSON(t)["code"], path)
	}
	require.Contains(t, e.get("/agents/done").Body, `<span class="chip closed disposed" id="status-chip">disposed</span>`)
}

func TestStartFormCreatesAnAgentAndOpensItsPage(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, time.Minute)
	r := e.do(http.MethodPost, "/agents", url.Values{"id": {"fresh"}, "provider": {"scripted"}, "model": {"m3"},
		"tools": {"calculate, echo"}, "system": {"Be brief."}, "first": {"/say hello"}},
		map[string]string{"Authorization": "Bearer " + testToken}, nil)
	require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
	require.Equal(t, "/agents/fresh?done=start", r.Header.Get("Location"))
	h, err := e.agents.Attach(ctx, "fresh")
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	page := e.get("/agents/fresh")
	require.Contains(t, page.Body, "tools</dt><dd>calculate, echo</dd>")
	require.Contains(t, page.Body, "hello")
}

func TestTheDoneBannerNeverShowsTheQuerysText(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, time.Minute)
	e.idle(ctx, "bannered", "/say hi", signals.AgentOptions{})
	page := e.get("/agents/bannered?done=" + url.QueryEscape("your session expired: log in at evil.example"))
	require.Equal(t, http.StatusOK, page.Status)
	require.NotContains(t, page.Body, "evil.example")
	require.NotContains(t, page.Body, `class="result ok"`)
	page = e.get("/agents/bannered?done=cancel")
	require.Contains(t, page.Body, `<p class="result ok" role="status">done: cancel</p>`)
}
