package activities_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// fakeMCP answers every MCP call with res or err and records it.
type fakeMCP struct {
	res tools.Result
	err error

	mu    sync.Mutex
	calls []tools.Call
	tools []signals.MCPGrant
}

func (f *fakeMCP) CallMCP(_ context.Context, tool signals.MCPGrant, call tools.Call) (tools.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tools, f.calls = append(f.tools, tool), append(f.calls, call)
	return f.res, f.err
}

var mcpInput = signals.ToolInput{
	AssistantSeq: 11, CallID: "call_2_0", Name: "files__read", IdempotencyKey: "agent-1/3/2/call_2_0",
	MCP: &signals.MCPGrant{Server: "files", Tool: "read"},
}

func TestToolRunSendsAnMCPCallToTheMCPServerWithItsArgumentsAndKey(t *testing.T) {
	rec, fake := &recordingTool{}, &fakeMCP{res: tools.Result{Content: "# Tether", IsError: true}}
	log := &fakeToolCalls{req: eventlog.ToolCallRequest{ID: "call_2_0", Name: "files__read", Arguments: []byte(`{"path":"README.md"}`)}}
	tool := &activities.Tool{Runner: toolRegistry(t, rec), Log: log, MCP: fake}

	out, err := runTool(t, tool, mcpInput)
	require.NoError(t, err)
	require.Equal(t, signals.ToolOutput{CallID: "call_2_0", Name: "files__read", Content: "# Tether", IsError: true}, out)
	require.Equal(t, []signals.MCPGrant{{Server: "files", Tool: "read"}}, fake.tools)
	require.Len(t, fake.calls, 1)
	require.Equal(t, mcpInput.IdempotencyKey, fake.calls[0].IdempotencyKey)
	require.JSONEq(t, `{"path":"README.md"}`, string(fake.calls[0].Arguments))
	require.Empty(t, rec.got(), "the worker's own tools are not asked")
}

func TestAnMCPFaultIsRetriedWithoutCountingAgainstTheCallsAttempts(t *testing.T) {
	log := &fakeToolCalls{req: eventlog.ToolCallRequest{ID: "call_2_0", Arguments: []byte(`{}`)}}
	tool := &activities.Tool{Runner: toolRegistry(t, &recordingTool{}), Log: log, MCP: &fakeMCP{err: errors.New("server exited")}}
	in := mcpInput
	in.Attempts = 1 // one own failure would end the call

	h := listenHeartbeats(t)
	_, err := runToolIn(t, h.env, tool, in)
	appErr := requireAppError(t, err)
	require.Equal(t, activities.ErrMCPUnavailable, appErr.Type())
	require.False(t, appErr.NonRetryable(), "a fault is retried")
	require.Contains(t, appErr.Error(), "tool files__read call call_2_0: server exited")
	require.Zero(t, h.last().Failures, "and not counted")
}

func TestToolRunTellsTheModelAWorkerWithoutMCPHasNoSuchServer(t *testing.T) {
	log := &fakeToolCalls{req: eventlog.ToolCallRequest{ID: "call_2_0", Arguments: []byte(`{}`)}}
	tool := &activities.Tool{Runner: toolRegistry(t, &recordingTool{}), Log: log}

	out, err := runTool(t, tool, mcpInput)
	require.NoError(t, err)
	require.True(t, out.IsError)
	require.Equal(t, `MCP server "files" is not configured on this worker`, out.Content)
}

// listingLog is a conversation that also has MCP listings.
type listingLog struct {
	fakeConversation
	listings eventlog.Listings
	err      error
}

func (l *listingLog) Listings(context.Context, signals.LogRef) (eventlog.Listings, error) {
	return l.listings, l.err
}

var testListings = eventlog.Listings{
	"files": {Server: "files", Digest: "sha256:1", Tools: []eventlog.MCPTool{
		{Name: "read", Description: "Read a file", InputSchema: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`), ReadOnly: true},
		{Name: "read.v2", Description: "Read faster"},
	}},
}

func TestModelCallDescribesMCPToolsFromTheRecordedListings(t *testing.T) {
	p := &fakeProvider{out: eventlog.AssistantMessage{Text: "ok"}}
	m := newModel(t, map[string]activities.Provider{"main": p}, &listingLog{fakeConversation: fakeConversation{msgs: testConversation}, listings: testListings})

	_, err := callModel(t, m, signals.ModelInput{Call: signals.CallConfig{Model: "m", Tools: []string{"files__read_v2", "echo", "files__read"}}})
	require.NoError(t, err)
	require.Equal(t, []llm.ToolSpec{
		{Name: "files__read_v2", Description: "Read faster"},
		{Name: "echo", Description: "echoes text", Parameters: []byte(`{"type":"object","properties":{"text":{"type":"string"}}}`)},
		{Name: "files__read", Description: "Read a file", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
	}, p.requests()[0].Tools, "in the order asked, under the names the model calls")
}

func TestModelCallRefusesToolsNeitherTheWorkerNorAListingHas(t *testing.T) {
	logs := map[string]activities.ConversationReader{
		"with listings":    &listingLog{fakeConversation: fakeConversation{msgs: testConversation}, listings: testListings},
		"without listings": &fakeConversation{msgs: testConversation},
	}
	for name, log := range logs {
		t.Run(name, func(t *testing.T) {
			p := &fakeProvider{}
			m := newModel(t, map[string]activities.Provider{"main": p}, log)
			_, err := callModel(t, m, signals.ModelInput{Call: signals.CallConfig{Tools: []string{"echo", "files__write"}}})
			requireFailure(t, err, eventlog.Failure{Kind: eventlog.FailureInvalidRequest, Message: `unknown tool "files__write"`})
			_, err = callModel(t, m, signals.ModelInput{Call: signals.CallConfig{Tools: []string{"files__read", "files__read"}}})
			require.Error(t, err)
			require.Empty(t, p.requests())
		})
	}
}

func TestModelCallListingReadFailureIsRetryableLogUnavailable(t *testing.T) {
	m := newModel(t, map[string]activities.Provider{"main": &fakeProvider{}},
		&listingLog{fakeConversation: fakeConversation{msgs: testConversation}, err: errors.New("workflow unreachable")})
	_, err := callModel(t, m, signals.ModelInput{Call: signals.CallConfig{Tools: []string{"files__read"}}})
	appErr := requireAppError(t, err)
	require.Equal(t, activities.ErrLogUnavailable, appErr.Type())
	require.False(t, appErr.NonRetryable())
}

func TestLogReaderListingsAreTheMCPListingsOfTheLogPrefix(t *testing.T) {
	listed := eventlog.ToolsListed{Servers: []eventlog.ServerTools{testListings["files"]}}
	q := &fakeLogQuerier{logs: map[string][]eventlog.Envelope{"a": encodeLog(t, append(append([]eventlog.Event{}, testLog[:6]...), listed))}}
	r := activities.NewLogReader(q, 0)

	before, err := r.Listings(context.Background(), ref("a", 6))
	require.NoError(t, err)
	require.Empty(t, before)
	got, err := r.Listings(context.Background(), ref("a", 7))
	require.NoError(t, err)
	require.Equal(t, testListings, got)
	got["files"] = eventlog.ServerTools{}
	again, err := r.Listings(context.Background(), ref("a", 7))
	require.NoError(t, err)
	require.Equal(t, testListings, again, "the caller owns its copy")
}
