package devserver

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/signals"
)

// The same process restarts the server here; the SQLite plugin keeps its
// connection to the file open across servers, but every Temporal service,
// cache and port is new, so state comes back from temporal.db.
func TestOpenWorkflowSurvivesServerRestart(t *testing.T) {
	ctx := testContext(t)
	dir := filepath.Join(t.TempDir(), "data") // created by Start
	opts := Options{DataDir: dir, SearchAttributes: DefaultSearchAttributes()}

	s1, err := Start(ctx, opts)
	require.NoError(t, err)
	c1 := dial(t, s1)
	w1 := startWorker(t, c1)
	run, err := c1.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "waiter-restart", TaskQueue: testTaskQueue}, waiterWorkflow)
	require.NoError(t, err)
	_, err = c1.QueryWorkflow(ctx, run.GetID(), run.GetRunID(), startedQuery) // its first task ran
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(dir, "temporal.db-wal"), "journal_mode=wal took effect")
	stamp, err := os.ReadFile(filepath.Join(dir, stampFileName))
	require.NoError(t, err)
	require.Equal(t, ServerVersion+"\n", string(stamp))
	w1.Stop()
	c1.Close()
	require.NoError(t, s1.Stop())

	s2 := startServer(t, opts)
	require.NotEqual(t, s1.HostPort(), s2.HostPort())
	c2 := dial(t, s2)
	defer c2.Close()
	defer startWorker(t, c2).Stop()
	require.NoError(t, c2.SignalWorkflow(ctx, run.GetID(), run.GetRunID(), wakeSignal, "after restart"))
	var out string
	require.NoError(t, c2.GetWorkflow(ctx, run.GetID(), run.GetRunID()).Get(ctx, &out))
	require.Equal(t, "woke: after restart", out)
}

var (
	statusKey = temporal.NewSearchAttributeKeyKeyword(signals.AttrStatus)
	modelKey  = temporal.NewSearchAttributeKeyKeyword(signals.AttrModel)
	turnKey   = temporal.NewSearchAttributeKeyInt64(signals.AttrTurn)
)

func TestRegisteredSearchAttributesFilterWorkflows(t *testing.T) {
	ctx := testContext(t)
	s := startServer(t, Options{SearchAttributes: DefaultSearchAttributes()})
	c := dial(t, s)
	defer c.Close()
	for id, status := range map[string]string{"agent-idle": "idle", "agent-running": "running"} {
		_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
			ID:        id,
			TaskQueue: testTaskQueue, // no worker needed: visibility is written at start
			TypedSearchAttributes: temporal.NewSearchAttributes(
				statusKey.ValueSet(status), modelKey.ValueSet("openai/gpt-5"), turnKey.ValueSet(3)),
		}, waiterWorkflow)
		require.NoError(t, err)
	}

	require.Equal(t, []string{"agent-idle"}, listIDs(ctx, t, c, "TetherStatus = 'idle'", 1))
	require.Len(t, listIDs(ctx, t, c, "TetherTurn = 3 AND TetherModel = 'openai/gpt-5'", 2), 2)
}

func TestExistingDataDirGainsMissingSearchAttributes(t *testing.T) {
	ctx := testContext(t)
	dir := t.TempDir()
	s1, err := Start(ctx, Options{DataDir: dir, SearchAttributes: map[string]enumspb.IndexedValueType{
		signals.AttrStatus: enumspb.INDEXED_VALUE_TYPE_KEYWORD,
	}})
	require.NoError(t, err)
	require.NoError(t, s1.Stop())

	s2 := startServer(t, Options{DataDir: dir, SearchAttributes: DefaultSearchAttributes()})
	c := dial(t, s2)
	defer c.Close()
	_, err = c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                    "agent-turn-7",
		TaskQueue:             testTaskQueue,
		TypedSearchAttributes: temporal.NewSearchAttributes(turnKey.ValueSet(7)),
	}, waiterWorkflow)
	require.NoError(t, err)
	require.Equal(t, []string{"agent-turn-7"}, listIDs(ctx, t, c, "TetherTurn = 7", 1))
}
