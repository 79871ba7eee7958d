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
	"github.com/tetherdev/tether/signals"
)

func TestSwitchModelToAProviderTheWorkerLacksIsRefusedAndThePageNamesTheResolvedModel(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, time.Minute)
	e.idle(ctx, "truth", "/say one", signals.AgentOptions{})
	r := e.act("/agents/truth/model", url.Values{"provider": {"nope"}, "model": {"x"}})
	require.Equal(t, http.StatusBadRequest, r.Status, r.Body)
	body := r.JSON(t)
	require.Equal(t, "rejected", body["code"])
	require.Contains(t, body["error"], `provider "nope" is not offered by this worker`)

	page := e.do(http.MethodGet, "/agents/truth", nil, map[string]string{"Authorization": "Bearer " + testToken}, nil).Body
	require.Contains(t, page, `<dd class="model-in-force">scripted/scripted-demo</dd>`,
		"the header names what the worker resolved, not default/default")
	require.Contains(t, page, "runs on scripted/scripted-demo (the worker&#39;s default)")
	require.NotContains(t, page, "model switched to", "neither the resolution nor the refusal is a switch")
	require.False(t, strings.Contains(page, "nope/x"), "a refused update leaves nothing in the log")
}

func TestAScheduledMessageShowsWhenItIsDueAndWhatItSays(t *testing.T) {
	e := operatorEnv(t)
	ctx := ctxT(t, time.Minute)
	h := e.idle(ctx, "later", "/say one", signals.AgentOptions{})
	due := time.Now().Add(72 * time.Hour).UTC().Truncate(time.Second)
	_, err := h.Send(ctx, "the weekly report", eventlog.NextTurn, true, agent.At(due), agent.WithMessageID("weekly"))
	require.NoError(t, err)
	stamp := due.Format("2006-01-02 15:04:05 UTC")
	require.Eventually(t, func() bool {
		page := e.do(http.MethodGet, "/agents/later", nil, map[string]string{"Authorization": "Bearer " + testToken}, nil).Body
		return strings.Contains(page, "message weekly scheduled for "+stamp+" (next-turn): the weekly report") &&
			strings.Contains(page, `id="inbox-scheduled"`) && strings.Contains(page, ">"+stamp+"</time> (next-turn) the weekly report")
	}, 20*time.Second, 50*time.Millisecond)
	require.NotContains(t, e.do(http.MethodGet, "/agents/later", nil, map[string]string{"Authorization": "Bearer " + testToken}, nil).Body,
		"inbox/scheduled", "no raw event type")
}
