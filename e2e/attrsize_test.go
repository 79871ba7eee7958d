package e2e

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// The server stores a run's events in batches, each event framed by one tag
// byte and its length, and counts those bytes (HistorySizeBytes, what its
// history size limit reads). It adds the registered type to each search
// attribute payload it serves that has none. Had the upserts stored their
// type, the stored bytes would be within a few dozen (55 here) of the
// served ones framed; stored without it, they are below by the type
// metadata's bytes and that.
func TestSearchAttributeUpsertsAreStoredWithoutTheirType(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, 30*time.Second)

	h, err := e.agents.Create(ctx, agent.CreateOptions{
		ID:      "attr-size",
		Options: signals.AgentOptions{Provider: "scripted", Model: "m1", Tools: []string{"echo"}},
		First:   `/tool echo {"text":"hi"}`,
	})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	_, err = h.Followup(ctx, "/say again")
	require.NoError(t, err)
	st, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, st.Turn)

	events, err := projection.Fetch(ctx, e.c, h.ID, "")
	require.NoError(t, err)
	framed := func(ev proto.Message) int { n := proto.Size(ev); return 1 + protowire.SizeVarint(uint64(n)) + n }
	served, untyped, typed, upserts := 0, 0, 0, 0
	for _, ev := range events {
		served += framed(ev)
		a := ev.GetUpsertWorkflowSearchAttributesEventAttributes()
		if a == nil {
			untyped += framed(ev)
			continue
		}
		upserts++
		for _, p := range a.GetSearchAttributes().GetIndexedFields() {
			if _, ok := p.GetMetadata()["type"]; ok {
				typed++
				delete(p.Metadata, "type")
			}
		}
		untyped += framed(ev)
	}
	require.GreaterOrEqual(t, upserts, 4, "status and turn for each turn's start and end")
	require.GreaterOrEqual(t, typed, upserts, "the server serves every upserted value typed")

	desc, err := e.c.DescribeWorkflowExecution(ctx, h.ID, "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, desc.GetWorkflowExecutionInfo().GetStatus())
	stored := int(desc.GetWorkflowExecutionInfo().GetHistorySizeBytes())
	types := served - untyped
	require.Greater(t, types, 13*upserts, "each upsert's values serve a type of 13 bytes or more")
	require.Less(t, stored, served-types/2-32,
		"stored %d bytes, served %d, %d of them the upserts' type metadata", stored, served, types)

	e.requireListed(t, ctx, "TetherStatus = 'idle' AND TetherTurn = 2", "attr-size")
}

// A run continued as new starts from its predecessor's attributes, stored
// untyped and served typed: it reads them (currentAttrs) and upserts only
// what changes, so its first turn writes status and turn, never the model
// it already shows.
func TestAContinuedRunReadsItsUntypedAttributesBack(t *testing.T) {
	e := newEnv(t)
	e.cfg.MaxRunTurns = 1
	e.startWorker(echoTool())
	ctx := ctxT(t, 30*time.Second)

	h, err := e.agents.Create(ctx, agent.CreateOptions{
		ID: "attr-carry", Options: signals.AgentOptions{Provider: "scripted", Model: "m1"}, First: "/say one",
	})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	_, err = h.Followup(ctx, "/say two")
	require.NoError(t, err)
	st, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, st.Turn)

	desc, err := e.c.DescribeWorkflowExecution(ctx, h.ID, "")
	require.NoError(t, err)
	first := desc.GetWorkflowExecutionInfo().GetFirstRunId()
	run := desc.GetWorkflowExecutionInfo().GetExecution().GetRunId()
	require.NotEqual(t, first, run, "turn 2 runs in a continued run")
	// Every continued run (the one that took turn 2, and any the agent
	// continued into after it) starts with the model attribute typed and
	// never upserts it again; walk the chain back to the first run.
	upserts := 0
	for run != first {
		it := e.c.GetWorkflowHistory(ctx, h.ID, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		prev := ""
		for it.HasNext() {
			ev, err := it.Next()
			require.NoError(t, err)
			if s := ev.GetWorkflowExecutionStartedEventAttributes(); s != nil {
				prev = s.GetContinuedExecutionRunId()
				p := s.GetSearchAttributes().GetIndexedFields()[signals.AttrModel]
				require.NotNil(t, p, "the continued run starts with the model attribute")
				require.Equal(t, "Keyword", string(p.GetMetadata()["type"]))
			}
			if a := ev.GetUpsertWorkflowSearchAttributesEventAttributes(); a != nil {
				upserts++
				_, model := a.GetSearchAttributes().GetIndexedFields()[signals.AttrModel]
				require.False(t, model, "event %d upserts the model it carried", ev.GetEventId())
			}
		}
		require.NotEmpty(t, prev, "run %s continues another", run)
		run = prev
	}
	require.GreaterOrEqual(t, upserts, 2, "turn 2's status changes")
}
