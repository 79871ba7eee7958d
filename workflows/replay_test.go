package workflows

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/signals"
)

// Every history recorded in testdata/histories (by the end-to-end suite, see
// e2e/replay_test.go) must replay against the current workflow code: a change
// to command order that is not guarded by workflow.GetVersion fails here.
func TestRecordedHistoriesReplay(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "the replay corpus is missing")
	hooks, enabled := hook.Defaults() // what every worker runs
	cfg := Config{Hooks: hooks, DefaultHooks: enabled}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(Agent{Config: cfg}.Run, workflow.RegisterOptions{Name: signals.AgentWorkflow})
			require.NoError(t, r.ReplayWorkflowHistoryFromJSONFile(nil, f))
		})
	}
}
