package tetherfx

import (
	"bytes"
	"context"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/internal/testserver"
	"github.com/tetherdev/tether/signals"
)

// lockedBuffer is the app's log, read while the worker writes it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// The worker's log lines say which agent, run, turn and step they are
// about: the model and tool calls' (with provider and model, or tool and
// call), the turn's start and end, and the workflow's own warnings. No
// telemetry flag is needed for them.
func TestTheWorkersLogLinesCarryAgentRunTurnAndStep(t *testing.T) {
	ts := testserver.New(t)
	queue := "q-logs"
	cfg, err := configfx.Load([]string{"--address", ts.GetFrontendHostPort(), "--namespace", ts.GetDefaultNamespace(),
		"--task-queue", queue}, func(string) string { return "" }, nil)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	logs := &lockedBuffer{}
	app := fx.New(Worker(cfg, logs))
	require.NoError(t, app.Start(ctx))
	defer func() { require.NoError(t, app.Stop(ctx)) }()

	h, err := agent.New(ts.GetDefaultClient(), queue).Create(ctx, agent.CreateOptions{ID: "logged",
		Options: signals.AgentOptions{Hooks: []string{}, Tools: []string{"calculate"}}, First: `/tool calculate {"expression":"6*7"}`})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	// A message no client may send: the workflow refuses it with a warning.
	require.NoError(t, ts.GetDefaultClient().SignalWorkflow(ctx, "logged", "", signals.FollowupSignal.Name,
		signals.Message{ID: signals.MadePrefix + "forged", Content: "hi"}))
	rejected := regexp.MustCompile(`level=WARN msg="Message rejected" .*agent=logged run=\S+ turn=1 step=\d+ message_id=made:forged`)
	require.Eventually(t, func() bool { return rejected.MatchString(logs.String()) }, 30*time.Second, 20*time.Millisecond,
		"no rejection line in:\n%s", logs)

	out := logs.String()
	for _, line := range []string{
		`level=INFO msg="Turn started" .*agent=logged run=\S+ turn=1 retry_of=0`,
		`level=INFO msg="Model call finished" .*agent=logged run=\S+ turn=1 step=1 provider=scripted operation=chat response_model=scripted-demo .*input_tokens=\d+ output_tokens=\d+`,
		`level=INFO msg="Tool call finished" .*agent=logged run=\S+ turn=1 step=1 tool=calculate call_id=\S+ outcome=ok`,
		`level=INFO msg="Model call finished" .*agent=logged run=\S+ turn=1 step=2 provider=scripted`,
		`level=INFO msg="Turn ended" .*agent=logged run=\S+ turn=1 outcome=completed steps=2`,
	} {
		require.Regexp(t, line, out)
	}
	require.NotContains(t, out, "6*7", "no tool argument in the log")
}
