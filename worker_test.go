package tether_test

import (
	"bytes"
	"context"
	"flag"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/internal/testserver"
	"github.com/tetherdev/tether/signals"
)

// house is a provider of the embedding program's own: it always says hi.
type house struct{}

func (house) Complete(context.Context, llm.Request) (eventlog.AssistantMessage, error) {
	return eventlog.AssistantMessage{Text: "hi from the house model", FinishReason: eventlog.FinishStop, Model: "house-1"}, nil
}

func env(vars map[string]string) tether.Option {
	return tether.WithEnv(func(k string) string { return vars[k] })
}

// The environment configures the worker only when asked to (FromEnv or
// FromFlags), and then as cmd/worker's: a bad value is refused, -h prints
// the flags and is flag.ErrHelp.
func TestNewWorkerReadsTheEnvironmentOnlyWhenAsked(t *testing.T) {
	bad := env(map[string]string{"TETHER_PROVIDER": "gemini"})
	_, err := tether.NewWorker(bad, tether.WithLog(io.Discard))
	require.NoError(t, err)
	_, err = tether.NewWorker(bad, tether.FromEnv(), tether.WithLog(io.Discard))
	require.EqualError(t, err, `--provider "gemini" is unknown: use scripted, openai or anthropic`)
	_, err = tether.NewWorker(bad, tether.FromFlags([]string{"--provider", "scripted"}), tether.WithLog(io.Discard))
	require.NoError(t, err, "a flag wins over the environment, as in cmd/worker")
	var help bytes.Buffer
	_, err = tether.NewWorker(tether.FromFlags([]string{"-h"}), tether.WithLog(&help))
	require.ErrorIs(t, err, flag.ErrHelp)
	require.Contains(t, help.String(), "--task-queue")
}

// One worker with a tool, a hook, a profile and a provider of its own: an
// agent on the default provider gets the house model, another calls the
// tool and the hook refuses the call it forbids; ctx's end stops the worker
// and Run returns nil, once.
func TestWorkerRunsTheProgramsOwnToolsHooksProfilesAndProviders(t *testing.T) {
	ts := testserver.New(t)
	echo := tools.Tool{Name: "echo", Description: "Say the text back.", Idempotent: true,
		Parameters: []byte(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Run: func(_ context.Context, c tools.Call) (tools.Result, error) {
			return tools.Result{Content: string(c.Arguments)}, nil
		}}
	noShouting := hook.Hook{Name: "no-shouting", ToolPre: func(_ workflow.Context, _ hook.Agent, c hook.Call) error {
		if bytes.Contains(c.Arguments, []byte("LOUD")) {
			return hook.Deny("no shouting")
		}
		return nil
	}}
	logs := &syncBuffer{}
	w, err := tether.NewWorker(
		tether.FromFlags([]string{"--address", ts.GetFrontendHostPort(), "--namespace", ts.GetDefaultNamespace()}), env(nil),
		tether.WithLog(logs), tether.WithTools(echo), tether.WithHooks(noShouting),
		tether.WithProfile("echoer", signals.Profile{Options: signals.AgentOptions{Tools: []string{"echo"}}}),
		tether.WithProvider("house", house{}), tether.WithDefaultProvider("house"))
	require.NoError(t, err)
	ctx, stop := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx) }()
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "Started Worker") }, time.Minute, 50*time.Millisecond)

	wait, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	agents := agent.New(ts.GetDefaultClient(), "")
	plain, err := agents.Create(wait, agent.CreateOptions{First: "hello"})
	require.NoError(t, err)
	_, err = plain.WaitIdle(wait)
	require.NoError(t, err)
	require.Contains(t, transcript(t, wait, plain), "hi from the house model")

	tooled, err := agents.Create(wait, agent.CreateOptions{
		Options: signals.AgentOptions{Provider: "scripted", Tools: []string{"echo"}, Hooks: []string{"no-shouting"}},
		First:   "/tool echo {\"text\":\"quiet\"}\n/tool echo {\"text\":\"LOUD\"}"})
	require.NoError(t, err)
	_, err = tooled.WaitIdle(wait)
	require.NoError(t, err)
	text := transcript(t, wait, tooled)
	require.Contains(t, text, `{"text":"quiet"}`)
	require.Contains(t, text, "no shouting")

	stop()
	select {
	case err := <-ran:
		require.NoError(t, err)
	case <-time.After(time.Minute):
		t.Fatal("Run did not return after its context ended")
	}
	require.ErrorIs(t, w.Run(context.Background()), tether.ErrRan)
}

// A default provider the worker does not have fails Run in one sentence.
func TestRunRefusesAnUnknownDefaultProvider(t *testing.T) {
	ts := testserver.New(t)
	w, err := tether.NewWorker(tether.FromFlags([]string{"--address", ts.GetFrontendHostPort(), "--namespace", ts.GetDefaultNamespace()}),
		env(nil), tether.WithLog(io.Discard), tether.WithDefaultProvider("house"))
	require.NoError(t, err)
	err = w.Run(context.Background())
	require.Error(t, err)
	require.Contains(t, err.Error(), "the default provider house is not one of the worker's: add it with tether.WithProvider")
}

// syncBuffer is written by the worker and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// transcript is every assistant answer and tool result of h, one a line.
func transcript(t *testing.T, ctx context.Context, h *agent.Handle) string {
	t.Helper()
	envs, err := h.Log(ctx)
	require.NoError(t, err)
	events, err := eventlog.DecodeAll(envs)
	require.NoError(t, err)
	var b bytes.Buffer
	for _, e := range events {
		switch e := e.(type) {
		case eventlog.AssistantMessage:
			b.WriteString(e.Text + "\n")
		case eventlog.ToolResult:
			b.WriteString(e.Content + "\n")
		}
	}
	return b.String()
}

// Main speaks as the program it runs in: a failure to start is one
// sentence under its name, and exit status 2; -h is 0.
func TestMainReportsAFailureToStartUnderTheProgramsName(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	var logs bytes.Buffer
	require.Equal(t, 2, tether.Main("shop-worker", tether.FromFlags([]string{"--address", addr}), env(nil), tether.WithLog(&logs)))
	require.Equal(t, "shop-worker: no Temporal server at "+addr+" (connection refused): start one, or run with --dev\n", logs.String())
	logs.Reset()
	require.Equal(t, 0, tether.Main("shop-worker", tether.FromFlags([]string{"-h"}), env(nil), tether.WithLog(&logs)))
	require.Contains(t, logs.String(), "--task-queue")
}
