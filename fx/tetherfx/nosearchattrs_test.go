package tetherfx

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/operatorservice/v1"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/internal/testserver"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// The worker app run with --no-search-attributes on a namespace that has
// none of Tether's starts without registering them, and an agent started
// without them (agent.WithoutSearchAttributes, starter
// --no-search-attributes) answers; its history writes no status.
func TestTheWorkerRunsWithoutSearchAttributesOnANamespaceWithoutThem(t *testing.T) {
	ts := testserver.New(t)
	c := ts.GetDefaultClient()
	cfg, err := configfx.Load([]string{"--address", ts.GetFrontendHostPort(), "--namespace", ts.GetDefaultNamespace(),
		"--no-search-attributes"}, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	app := fx.New(Worker(cfg, io.Discard))
	require.NoError(t, app.Start(ctx))
	defer func() { require.NoError(t, app.Stop(ctx)) }()

	h, err := agent.New(c, "", agent.WithoutSearchAttributes()).Create(ctx, agent.CreateOptions{
		Options: signals.AgentOptions{Hooks: []string{}}, First: "/say no attributes needed"})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	log, err := h.Log(ctx)
	require.NoError(t, err)
	evs, err := eventlog.DecodeAll(log)
	require.NoError(t, err)
	var answers []string
	for _, e := range evs {
		if m, ok := e.(eventlog.AssistantMessage); ok {
			answers = append(answers, m.Text)
		}
	}
	require.Equal(t, []string{"no attributes needed"}, answers)

	history, err := projection.Fetch(ctx, c, h.ID, "")
	require.NoError(t, err)
	for _, ev := range history {
		if a := ev.GetUpsertWorkflowSearchAttributesEventAttributes(); a != nil {
			require.NotContains(t, a.GetSearchAttributes().GetIndexedFields(), signals.AttrStatus)
		}
	}
	attrs, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: ts.GetDefaultNamespace()})
	require.NoError(t, err)
	require.NotContains(t, attrs.GetCustomAttributes(), signals.AttrStatus, "the worker registered none")
}
