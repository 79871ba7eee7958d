package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/signals"
)

// The key rotation's last step: with TETHER_CODEC_REQUIRE_BINDING an
// agent runs as before (everything the worker and its client write is
// bound), and a message encrypted under the right key but bound to no
// workflow (as before binding, or by the codec server's /encode naming
// none) is dropped, never read, while the agent keeps working.
func TestWithBindingRequiredAnAgentRunsAndRefusesUnboundMessages(t *testing.T) {
	ctx := ctxT(t, 2*time.Minute)
	key := codecKey(t, "k1")
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o700))
	w := startDevWorker(t, []string{"--dev", "--data-dir", dir, "--port", "0", "--ui-port", "0"},
		map[string]string{codec.EnvKeys: key, codec.EnvRequireBinding: "true"})
	agents := agent.New(w.c, "", agent.WithDataConverter(w.dc))
	h, err := agents.Create(ctx, agent.CreateOptions{ID: "strict-agent", First: "hello\n/say hi"})
	require.NoError(t, err)
	_, err = h.Followup(ctx, "second\n/say bound and read")
	require.NoError(t, err)
	st, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, st.Turn)

	keys, err := codec.ParseKeys(key)
	require.NoError(t, err)
	unbound, err := codec.New(codec.Config{Keys: keys})
	require.NoError(t, err)
	plain, err := converter.GetDefaultDataConverter().ToPayloads(signals.Message{ID: "unbound-1", Content: "UNBOUND-MESSAGE\n/say read it"})
	require.NoError(t, err)
	enc, err := unbound.Encode(plain.GetPayloads())
	require.NoError(t, err)
	require.NotContains(t, enc[0].GetMetadata(), codec.MetadataVersion)
	_, err = w.c.WorkflowService().SignalWorkflowExecution(ctx, &workflowservice.SignalWorkflowExecutionRequest{
		Namespace: w.srv.Namespace(), WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: h.ID},
		SignalName: signals.FollowupSignal.Name, Input: &commonpb.Payloads{Payloads: enc}, Identity: "an old client",
	})
	require.NoError(t, err)

	_, err = h.Followup(ctx, "third\n/say still here")
	require.NoError(t, err)
	st, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 3, st.Turn, "the unbound message started no turn")
	log, err := h.Log(ctx)
	require.NoError(t, err)
	raw, err := json.Marshal(log)
	require.NoError(t, err)
	require.False(t, bytes.Contains(raw, []byte("UNBOUND-MESSAGE")), "the worker read an unbound message: %s", raw)
	requireLogHolds(t, log, "bound and read", "still here")
}
