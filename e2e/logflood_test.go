package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/fx/tetherfx"
	"github.com/tetherdev/tether/internal/devserver"
	"github.com/tetherdev/tether/internal/ratelog"
	"github.com/tetherdev/tether/signals"
)

// Issue 20: a flood of signals the worker cannot decode writes at most
// ratelog.DefaultBurst of the SDK's error line a minute to the worker's
// log, not one a signal, and the agent keeps working.
func TestAFloodOfUndecodableSignalsCannotFillTheWorkersLog(t *testing.T) {
	ctx := ctxT(t, 2*time.Minute)
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o700))
	cfg, err := configfx.Load([]string{"--dev", "--data-dir", dir, "--port", "0", "--ui-port", "0"},
		func(string) string { return "" }, &bytes.Buffer{})
	require.NoError(t, err)
	var logs lockedBuffer
	var c client.Client
	var srv *devserver.Server
	app := fx.New(tetherfx.Worker(cfg, &logs), fx.NopLogger, fx.Populate(&c, &srv))
	require.NoError(t, app.Err())
	require.NoError(t, app.Start(ctx))
	t.Cleanup(func() {
		stop, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		require.NoError(t, app.Stop(stop))
	})

	h, err := agent.New(c, "").Create(ctx, agent.CreateOptions{ID: "flooded", First: "hello\n/say hi"})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	const flood = 300
	for i := range flood {
		_, err := c.WorkflowService().SignalWorkflowExecution(ctx, &workflowservice.SignalWorkflowExecutionRequest{
			Namespace:         srv.Namespace(),
			WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: h.ID},
			SignalName:        signals.FollowupSignal.Name,
			Input: &commonpb.Payloads{Payloads: []*commonpb.Payload{{
				Metadata: map[string][]byte{"encoding": []byte("json/plain")},
				Data:     []byte(fmt.Sprintf("{not json %d", i)),
			}}},
			Identity: "probe",
		})
		require.NoError(t, err)
	}
	_, err = h.Followup(ctx, "after the flood\n/say still here", agent.Acknowledged())
	require.NoError(t, err)
	st, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, st.Turn, "no undecodable signal started a turn")

	corrupted := strings.Count(logs.String(), "Corrupted signal received on channel")
	require.Positive(t, corrupted, "the SDK did log the undecodable signals")
	require.LessOrEqual(t, corrupted, ratelog.DefaultBurst, "logged once a signal:\n%s", logs.String())
}
