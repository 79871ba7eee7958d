package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/examples/internal/exampletest"
	"github.com/tetherdev/tether/signals"
)

const twoEmails = "/tool send_email {\"to\":\"bob@example.com\",\"subject\":\"hi\"}\n" +
	"/tool send_email {\"to\":\"eve@elsewhere.test\",\"subject\":\"hi\"}"

// An agent that names no hooks runs the policy: the email to the allowed
// domain is sent, the other is refused and never reaches the tool; an
// agent whose hook configuration allows the other domain sends that one.
func TestEmailPolicyHookRefusesDomainsTheAgentMayNotWriteTo(t *testing.T) {
	srv := exampletest.NewServer(t)
	outbox := t.TempDir()
	worker := exampletest.StartEnv(t, exampletest.Build(t), []string{"EMAIL_OUTBOX=" + outbox}, srv.Args()...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	results := run(t, ctx, srv, signals.AgentOptions{Tools: []string{"send_email"}}, worker)
	require.Equal(t, "sent to bob@example.com", results[0].Content)
	require.True(t, results[1].IsError)
	require.Contains(t, results[1].Content, `email to "elsewhere.test" is not allowed: this agent may write to example.com only`)
	require.Len(t, emails(t, outbox), 1, "the refused email never reached the tool")

	opts := signals.AgentOptions{Tools: []string{"send_email"},
		HookConfig: map[string]json.RawMessage{EmailPolicyName: json.RawMessage(`{"domains":["elsewhere.test"]}`)}}
	results = run(t, ctx, srv, opts, worker)
	require.True(t, results[0].IsError, "this agent may not write to example.com")
	require.Equal(t, "sent to eve@elsewhere.test", results[1].Content)
	require.Len(t, emails(t, outbox), 2)
}

// run starts an agent with opts on twoEmails and returns its two results
// in the order of the calls (bob's first), whatever order they ended in.
func run(t *testing.T, ctx context.Context, srv *exampletest.Server, opts signals.AgentOptions, worker *exampletest.Process) []eventlog.ToolResult {
	t.Helper()
	h, err := srv.Agents.Create(ctx, agent.CreateOptions{Options: opts, First: twoEmails})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err, worker.Log())
	results := exampletest.Results(t, ctx, h)
	require.Len(t, results, 2)
	if strings.Contains(results[1].Content, "bob") || strings.Contains(results[1].Content, `"example.com"`) {
		results[0], results[1] = results[1], results[0]
	}
	return results
}

func emails(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.eml"))
	require.NoError(t, err)
	return names
}
