package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/internal/cli"
)

// starterResult is what one starter invocation printed and returned.
type starterResult struct {
	code     int
	out, err string
}

// starter runs the starter command line against the env's server. Each run
// dials its own client (the starter closes what it dialed), in the namespace
// the --namespace connection flag names.
func (e *env) starter(ctx context.Context, args ...string) starterResult {
	var out, errOut bytes.Buffer
	s := cli.Starter{Out: &out, Err: &errOut, Dial: func(_ context.Context, o client.Options) (client.Client, error) {
		return e.ts.NewClientWithOptions(client.Options{Namespace: o.Namespace}), nil
	}}
	code := s.Run(ctx, append([]string{"--namespace", e.ts.GetDefaultNamespace()}, args...))
	return starterResult{code: code, out: out.String(), err: errOut.String()}
}

func requireExit(t *testing.T, r starterResult, code int) {
	t.Helper()
	require.Equal(t, code, r.code, "stdout:\n%s\nstderr:\n%s", r.out, r.err)
}

func TestStarterRunsAConversationAndReportsTypedErrors(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, 30*time.Second)

	r := e.starter(ctx, "start", "--id", "cli", "--tools", "echo", "--wait", `/tool echo {"text":"hi"}`)
	requireExit(t, r, 0)
	require.True(t, strings.HasPrefix(r.out, "cli\n"), "start prints the agent ID first:\n%s", r.out)
	require.Contains(t, r.out, `tool call:   echo {"text":"hi"}`)
	require.Contains(t, r.out, "tool result: echo → echo: hi")

	r = e.starter(ctx, "status", "cli")
	requireExit(t, r, 0)
	require.Contains(t, r.out, "status:    idle\n")
	require.Contains(t, r.out, "turn:      1\n")

	r = e.starter(ctx, "followup", "cli", "   ")
	requireExit(t, r, 1)
	require.Contains(t, r.err, "message content is empty")

	r = e.starter(ctx, "followup", "nosuch", "hi")
	requireExit(t, r, 1)
	require.Contains(t, r.err, "agent not found")

	r = e.starter(ctx, "log", "--json", "cli")
	requireExit(t, r, 0)
	requireLogJSON(t, r.out)

	r = e.starter(ctx, "dispose", "cli")
	requireExit(t, r, 0)
	r = e.starter(ctx, "followup", "cli", "hi")
	requireExit(t, r, 1)
	require.Contains(t, r.err, "agent is closed")
	r = e.starter(ctx, "status", "cli")
	requireExit(t, r, 0)
	require.Contains(t, r.out, "disposed:  true\n", "a closed agent's status is still readable")
	require.Contains(t, r.out, "status:    disposed\n", "in the words ls and tree use")

	r = e.starter(ctx, "start", "--id", "cli", "hi")
	requireExit(t, r, 1)
	require.Contains(t, r.err, "agent ID cli was used by an agent that has ended (disposed)")

	r = e.starter(ctx, "frobnicate", "cli")
	requireExit(t, r, 2)
	require.Equal(t, "starter: unknown command \"frobnicate\" (run starter without arguments for usage)\n", r.err)
	require.Empty(t, r.out)

	r = e.starter(ctx, "start", "--id", "cli2")
	requireExit(t, r, 2)
	require.Equal(t, "starter: start needs MESSAGE (run starter without arguments for usage)\n", r.err)
	require.Empty(t, r.out)
}

// requireLogJSON checks out is a session log as JSON envelopes, gap-free
// from seq 0, every one decodable.
func requireLogJSON(t *testing.T, out string) {
	t.Helper()
	var log []eventlog.Envelope
	require.NoError(t, json.Unmarshal([]byte(out), &log), out)
	require.NotEmpty(t, log)
	for i, env := range log {
		require.EqualValues(t, i, env.Seq)
	}
	evs := events(t, log)
	require.NotEmpty(t, ofType[eventlog.ToolResult](evs))
}

// The usage text documents `log ID [--json]`, `status ID [--json]` and
// `cancel ID [--cause C] [--keep-inbox]`: flags after the agent ID.
func TestStarterReadsFlagsAfterTheAgentID(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, 30*time.Second)
	requireExit(t, e.starter(ctx, "start", "--id", "cli", "--tools", "echo", "--wait", `/tool echo {"text":"hi"}`), 0)

	r := e.starter(ctx, "log", "cli", "--json")
	requireExit(t, r, 0)
	requireLogJSON(t, r.out)
	r = e.starter(ctx, "status", "cli", "--json")
	requireExit(t, r, 0)
	require.True(t, json.Valid([]byte(r.out)), r.out)
}

func TestStarterCancelKeepInboxLetsPendingFollowupRun(t *testing.T) {
	starterCancelKeepsInbox(t, "cancel", "--keep-inbox", "busy")
}

// The same in the argument order Usage documents.
func TestStarterCancelWithKeepInboxAfterTheIDKeepsInbox(t *testing.T) {
	starterCancelKeepsInbox(t, "cancel", "busy", "--keep-inbox")
}

// starterCancelKeepsInbox cancels agent "busy" mid-tool with cancelArgs
// while a followup is pending: the turn ends canceled, the followup runs.
func starterCancelKeepsInbox(t *testing.T, cancelArgs ...string) {
	e := newEnv(t)
	g := newGate(t)
	e.startWorker(g.tool())
	ctx := ctxT(t, 30*time.Second)

	requireExit(t, e.starter(ctx, "start", "--id", "busy", "--tools", "gate", "/tool gate {}"), 0)
	g.waitStarted(t, ctx)
	r := e.starter(ctx, "followup", "busy", "/say after cancel")
	requireExit(t, r, 0)
	id := eventlog.MessageID(strings.TrimSpace(r.out))

	requireExit(t, e.starter(ctx, cancelArgs...), 0)

	h, err := e.agents.Attach(ctx, "busy")
	require.NoError(t, err)
	st, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, st.Turn)
	_, evs := logOf(t, ctx, h)
	require.Equal(t, []eventlog.TurnEnd{
		{Turn: 1, Reason: eventlog.EndCanceled, Error: "canceled by starter"},
		{Turn: 2, Reason: eventlog.EndCompleted},
	}, ofType[eventlog.TurnEnd](evs))
	require.Equal(t, 2, eventlog.ConsumedWork(evs)[id].Turn)
	require.Equal(t, []string{"after cancel"}, answers(evs))
}

// A transcript previews a long tool result and says where the full text
// is; `log --json` keeps it whole.
func TestStarterTranscriptPreviewsLongToolResults(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, 30*time.Second)
	var lines []string
	for i := 1; i <= 40; i++ {
		lines = append(lines, fmt.Sprintf("row %02d", i))
	}
	text := strings.Join(lines, "\n")
	r := e.starter(ctx, "start", "--id", "long", "--tools", "echo", "--wait", `/tool echo {"text":"`+strings.Join(lines, `\n`)+`"}`)
	requireExit(t, r, 0)
	want := "tool result: echo → echo: row 01\n             row 02\n             row 03\n             row 04\n             row 05\n" +
		"             … (35 more lines, 285 bytes in all; full text: starter log --json long)\n"
	require.Contains(t, r.out, want, "the hint follows the fifth row")

	r = e.starter(ctx, "log", "long")
	requireExit(t, r, 0)
	require.Contains(t, r.out, want)

	r = e.starter(ctx, "log", "--json", "long")
	requireExit(t, r, 0)
	var log []eventlog.Envelope
	require.NoError(t, json.Unmarshal([]byte(r.out), &log))
	results := ofType[eventlog.ToolResult](events(t, log))
	require.Len(t, results, 1)
	require.Equal(t, "echo: "+text, results[0].Content)
}

func TestStarterDecidesCallsThatWaitForAPersonAndShowsTheTree(t *testing.T) {
	e := newEnv(t)
	e.startWorker(echoTool())
	ctx := ctxT(t, time.Minute)

	// Lists as people type them: spaces around names are trimmed.
	r := e.starter(ctx, "start", "--id", "asks", "--tools", "echo, spawn_agent", "--approve", " echo,", "--wait",
		`/tool echo {"text":"risky"}`)
	requireExit(t, r, 0)
	require.Contains(t, r.out, "the turn waits for a person: starter approve asks call_1_0")
	r = e.starter(ctx, "status", "asks")
	requireExit(t, r, 0)
	require.Contains(t, r.out, `waiting for approval: call call_1_0 (echo {"text":"risky"})`)
	r = e.starter(ctx, "deny", "asks", "call_1_1", "--reason", "no")
	requireExit(t, r, 1)
	require.Contains(t, r.err, "no tool call waits for that decision")
	r = e.starter(ctx, "deny", "asks", "call_1_0", "--reason", "too risky", "--by", "ops")
	requireExit(t, r, 0)
	require.Contains(t, r.out, "call_1_0 denied")
	r = e.starter(ctx, "wait", "asks")
	requireExit(t, r, 0)
	r = e.starter(ctx, "log", "asks")
	requireExit(t, r, 0)
	require.Contains(t, r.out, "decided:     call call_1_0 denied by ops: too risky")
	require.Contains(t, r.out, "tool error:  echo → tool call denied by ops: too risky")

	r = e.starter(ctx, "spawn", "asks", "/say from the child")
	requireExit(t, r, 0)
	child := strings.TrimSpace(r.out)
	require.True(t, strings.HasPrefix(child, "asks.child-"), child)
	waitFor(t, 30*time.Second, "the tree to list the child", func() bool {
		r = e.starter(ctx, "tree", "asks")
		return r.code == 0 && strings.Contains(r.out, "\n  "+child)
	})
	waitFor(t, 30*time.Second, "the child's answer, from it, in the parent's transcript", func() bool {
		r = e.starter(ctx, "log", "asks")
		return r.code == 0 && strings.Contains(r.out, "child "+child+": from the child")
	})
}
