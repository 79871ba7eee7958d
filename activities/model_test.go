package activities_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// The workflow execution TestActivityEnvironment reports in activity info:
// by default it runs activities as if a workflow had scheduled them, with
// these fixed IDs.
const (
	testWorkflowID = "default-test-workflow-id"
	testRunID      = "default-test-run-id"
)

// fakeProvider records the requests it gets and answers with out or err.
type fakeProvider struct {
	out eventlog.AssistantMessage
	err error

	mu   sync.Mutex
	reqs []llm.Request
}

func (p *fakeProvider) Complete(_ context.Context, req llm.Request) (eventlog.AssistantMessage, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reqs = append(p.reqs, req)
	return p.out, p.err
}

func (p *fakeProvider) requests() []llm.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]llm.Request(nil), p.reqs...)
}

// fakeConversation records the references it is asked for and answers msgs or err.
type fakeConversation struct {
	msgs []eventlog.Message
	err  error

	mu   sync.Mutex
	refs []signals.LogRef
}

func (c *fakeConversation) Conversation(_ context.Context, ref signals.LogRef) ([]eventlog.Message, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refs = append(c.refs, ref)
	return c.msgs, c.err
}

func (c *fakeConversation) got() []signals.LogRef {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]signals.LogRef(nil), c.refs...)
}

var testConversation = []eventlog.Message{
	{Role: eventlog.RoleSystem, Content: "be brief"},
	{Role: eventlog.RoleUser, Content: "what time is it?"},
}

func specRegistry(t *testing.T) *tools.Registry {
	t.Helper()
	noop := func(context.Context, tools.Call) (tools.Result, error) { return tools.Result{Content: "ok"}, nil }
	r, err := tools.NewRegistry(
		tools.Tool{Name: "current_time", Description: "tells the time", Run: noop},
		tools.Tool{Name: "echo", Description: "echoes text", Run: noop,
			Parameters: []byte(`{"type":"object","properties":{"text":{"type":"string"}}}`)},
	)
	require.NoError(t, err)
	return r
}

func newModel(t *testing.T, providers map[string]activities.Provider, log activities.ConversationReader) *activities.Model {
	t.Helper()
	m := &activities.Model{Providers: providers, DefaultProvider: "main", Tools: specRegistry(t), Log: log}
	require.NoError(t, m.Validate())
	return m
}

// callModel runs m.Call in a test activity environment.
func callModel(t *testing.T, m *activities.Model, in signals.ModelInput) (signals.ModelOutput, error) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(m.Call)
	val, err := env.ExecuteActivity(m.Call, in)
	if err != nil {
		return signals.ModelOutput{}, err
	}
	var out signals.ModelOutput
	require.NoError(t, val.Get(&out))
	return out, nil
}

// requireAppError returns the ApplicationError inside err.
func requireAppError(t *testing.T, err error) *temporal.ApplicationError {
	t.Helper()
	require.Error(t, err)
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr), "want an ApplicationError, got %T: %v", err, err)
	return appErr
}

// requireFailure checks that err is the typed, final ApplicationError of f:
// Temporal never retries a failed model call, the request-error hooks do.
func requireFailure(t *testing.T, err error, want eventlog.Failure) {
	t.Helper()
	appErr := requireAppError(t, err)
	require.Equal(t, string(want.Kind), appErr.Type())
	require.True(t, appErr.NonRetryable(), "a failed call closes its step; retry turns retry it")
	require.True(t, appErr.HasDetails())
	var got eventlog.Failure
	require.NoError(t, appErr.Details(&got))
	require.Equal(t, want, got)
}

func TestModelCallCompletesWithProviderNameAndModel(t *testing.T) {
	usage := eventlog.Usage{InputTokens: 12, OutputTokens: 3}
	tests := []struct {
		name      string
		call      signals.CallConfig
		answer    eventlog.AssistantMessage
		wantFrom  string // provider that must be asked
		wantModel string
	}{
		{
			name:      "default provider, model taken from the request",
			call:      signals.CallConfig{Model: "m-requested", MaxTokens: 256, Tools: []string{"echo", "current_time"}},
			answer:    eventlog.AssistantMessage{Text: "noon", Usage: usage, FinishReason: eventlog.FinishStop},
			wantFrom:  "main",
			wantModel: "m-requested",
		},
		{
			name:      "named provider, model reported by the provider wins",
			call:      signals.CallConfig{Provider: "other", Model: "m-requested"},
			answer:    eventlog.AssistantMessage{Text: "noon", Model: "m-2025-01-01", Usage: usage, FinishReason: eventlog.FinishStop},
			wantFrom:  "other",
			wantModel: "m-2025-01-01",
		},
		{
			name: "tool calls pass through",
			call: signals.CallConfig{Tools: []string{"current_time"}},
			answer: eventlog.AssistantMessage{
				ToolCalls:    []eventlog.ToolCallRequest{{ID: "c1", Name: "current_time", Arguments: []byte(`{}`)}},
				Usage:        usage,
				FinishReason: eventlog.FinishToolCalls,
			},
			wantFrom:  "main",
			wantModel: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			providers := map[string]*fakeProvider{"main": {out: tt.answer}, "other": {out: tt.answer}}
			log := &fakeConversation{msgs: testConversation}
			m := newModel(t, map[string]activities.Provider{"main": providers["main"], "other": providers["other"]}, log)

			got, err := callModel(t, m, signals.ModelInput{Ref: signals.LogRef{Upto: 7}, Call: tt.call})
			require.NoError(t, err)

			want := tt.answer
			want.Provider, want.Model = tt.wantFrom, tt.wantModel
			require.NotNil(t, got.Stream, "every call carries its timing")
			require.Zero(t, got.Stream.Chunks, "a call that did not stream has no chunks")
			got.Stream = nil
			require.Equal(t, want, got)

			for name, p := range providers {
				if name != tt.wantFrom {
					require.Empty(t, p.requests(), "provider %s must not be called", name)
				}
			}
			reqs := providers[tt.wantFrom].requests()
			require.Len(t, reqs, 1)
			wantSpecs, err := specRegistry(t).Specs(tt.call.Tools)
			require.NoError(t, err)
			require.Equal(t, llm.Request{
				Model: tt.call.Model, MaxTokens: tt.call.MaxTokens, Messages: testConversation, Tools: wantSpecs,
				CacheKey: testWorkflowID, // the agent whose log it is: the activity's own workflow
			}, reqs[0])
		})
	}
}

func TestModelCallReadsOwnWorkflowLogWhenRefHasNoAgent(t *testing.T) {
	tests := []struct {
		name string
		ref  signals.LogRef
		want signals.LogRef
	}{
		{"empty agent is completed from activity info", signals.LogRef{Upto: 9},
			signals.LogRef{AgentID: testWorkflowID, RunID: testRunID, Upto: 9}},
		{"explicit agent is kept", signals.LogRef{AgentID: "agent-7", RunID: "run-3", Upto: 4},
			signals.LogRef{AgentID: "agent-7", RunID: "run-3", Upto: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &fakeConversation{msgs: testConversation}
			m := newModel(t, map[string]activities.Provider{"main": &fakeProvider{}}, log)
			_, err := callModel(t, m, signals.ModelInput{Ref: tt.ref})
			require.NoError(t, err)
			require.Equal(t, []signals.LogRef{tt.want}, log.got())
		})
	}
}

func TestModelCallRejectsBadConfigurationAsNonRetryableInvalidRequest(t *testing.T) {
	tests := []struct {
		name    string
		call    signals.CallConfig
		message string
	}{
		{"unknown provider", signals.CallConfig{Provider: "nope"}, `unknown provider "nope"`},
		{"unknown tool", signals.CallConfig{Tools: []string{"echo", "rm_rf"}}, `unknown tool "rm_rf"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &fakeProvider{}
			log := &fakeConversation{msgs: testConversation}
			m := newModel(t, map[string]activities.Provider{"main": p}, log)

			_, err := callModel(t, m, signals.ModelInput{Ref: signals.LogRef{Upto: 2}, Call: tt.call})
			requireFailure(t, err, eventlog.Failure{Kind: eventlog.FailureInvalidRequest, Message: tt.message})
			require.Empty(t, p.requests(), "no model request may be made")
			require.Empty(t, log.got(), "a rejected call does not read the log")
		})
	}
}

func TestModelCallLogReadFailureIsRetryableLogUnavailable(t *testing.T) {
	p := &fakeProvider{}
	log := &fakeConversation{err: errors.New("query agent-1: workflow not found")}
	m := newModel(t, map[string]activities.Provider{"main": p}, log)

	_, err := callModel(t, m, signals.ModelInput{Ref: signals.LogRef{Upto: 2}})
	appErr := requireAppError(t, err)
	require.Equal(t, activities.ErrLogUnavailable, appErr.Type())
	require.False(t, appErr.NonRetryable())
	require.Contains(t, appErr.Error(), "workflow not found")
	require.Empty(t, p.requests())
}

func TestModelCallTypesEveryProviderFailureKindAsFinal(t *testing.T) {
	for _, kind := range eventlog.FailureKinds {
		t.Run(string(kind), func(t *testing.T) {
			cause := errors.New("HTTP 503 from upstream")
			// Wrapped, to prove the *llm.Error is found anywhere in the chain.
			perr := fmt.Errorf("adapter: %w", llm.Fail(kind, 503, 1500*time.Millisecond, "model said no", cause))
			m := newModel(t, map[string]activities.Provider{"main": &fakeProvider{err: perr}}, &fakeConversation{msgs: testConversation})

			_, err := callModel(t, m, signals.ModelInput{Ref: signals.LogRef{Upto: 2}})
			requireFailure(t, err, eventlog.Failure{
				Kind: kind, Message: "model said no", StatusCode: 503, RetryAfter: 1500 * time.Millisecond,
			})
		})
	}
}

func TestModelCallPlainProviderErrorIsUnknown(t *testing.T) {
	perr := errors.New("connection reset by peer")
	m := newModel(t, map[string]activities.Provider{"main": &fakeProvider{err: perr}}, &fakeConversation{msgs: testConversation})

	_, err := callModel(t, m, signals.ModelInput{Ref: signals.LogRef{Upto: 2}})
	requireFailure(t, err, eventlog.Failure{Kind: eventlog.FailureUnknown, Message: perr.Error()})
}

func TestModelValidateRequiresEveryDependency(t *testing.T) {
	p := &fakeProvider{}
	valid := func() activities.Model {
		return activities.Model{
			Providers: map[string]activities.Provider{"main": p}, DefaultProvider: "main",
			Tools: specRegistry(t), Log: &fakeConversation{},
		}
	}
	tests := []struct {
		name    string
		mutate  func(*activities.Model)
		wantErr string
	}{
		{"complete", func(*activities.Model) {}, ""},
		{"no providers", func(m *activities.Model) { m.Providers = nil }, "no providers"},
		{"default not registered", func(m *activities.Model) { m.DefaultProvider = "other" }, `default provider "other" is not registered`},
		{"empty default", func(m *activities.Model) { m.DefaultProvider = "" }, `default provider "" is not registered`},
		{"nil default provider", func(m *activities.Model) { m.Providers["main"] = nil }, `default provider "main" is not registered`},
		{"no tools", func(m *activities.Model) { m.Tools = nil }, "tools and log reader are required"},
		{"no log", func(m *activities.Model) { m.Log = nil }, "tools and log reader are required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := valid()
			tt.mutate(&m)
			err := m.Validate()
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestRegisterExposesActivitiesUnderDurableNames(t *testing.T) {
	p := &fakeProvider{out: eventlog.AssistantMessage{Text: "hi", FinishReason: eventlog.FinishStop}}
	m := newModel(t, map[string]activities.Provider{"main": p}, &fakeConversation{msgs: testConversation})
	reg := specRegistry(t)
	tool := &activities.Tool{Runner: reg, Log: &fakeToolCalls{req: eventlog.ToolCallRequest{ID: "c1", Name: "current_time"}}}

	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	activities.Register(env, m, tool)

	val, err := env.ExecuteActivity(signals.ModelActivity, signals.ModelInput{Ref: signals.LogRef{Upto: 2}})
	require.NoError(t, err)
	var out signals.ModelOutput
	require.NoError(t, val.Get(&out))
	require.Equal(t, "hi", out.Text)

	val, err = env.ExecuteActivity(signals.ToolActivity, signals.ToolInput{AssistantSeq: 1, CallID: "c1", Name: "current_time"})
	require.NoError(t, err)
	var res signals.ToolOutput
	require.NoError(t, val.Get(&res))
	require.Equal(t, signals.ToolOutput{CallID: "c1", Name: "current_time", Content: "ok"}, res)
}

func TestModelValidateRejectsNilNonDefaultProvider(t *testing.T) {
	m := &activities.Model{
		Providers:       map[string]activities.Provider{"main": &fakeProvider{}, "other": nil},
		DefaultProvider: "main", Tools: specRegistry(t), Log: &fakeConversation{msgs: testConversation},
	}
	require.ErrorContains(t, m.Validate(), `"other"`)
}

// defaulting is a provider that picks its own model for a request naming
// none (activities.DefaultModeler).
type defaulting struct{ *fakeProvider }

func (defaulting) DefaultModel() string { return "m-default" }

// A call that names no model records what the provider's default asked
// for beside the snapshot that answered; a call naming one records none.
func TestModelCallRecordsTheDefaultModelItAskedFor(t *testing.T) {
	answer := eventlog.AssistantMessage{Text: "noon", Model: "m-default-2025-01-01", FinishReason: eventlog.FinishStop}
	m := newModel(t, map[string]activities.Provider{"main": defaulting{&fakeProvider{out: answer}}}, &fakeConversation{msgs: testConversation})

	got, err := callModel(t, m, signals.ModelInput{Ref: signals.LogRef{Upto: 7}})
	require.NoError(t, err)
	require.Equal(t, "m-default", got.DefaultModel)
	require.Equal(t, "m-default-2025-01-01", got.Model)

	got, err = callModel(t, m, signals.ModelInput{Ref: signals.LogRef{Upto: 7}, Call: signals.CallConfig{Model: "named"}})
	require.NoError(t, err)
	require.Empty(t, got.DefaultModel)
}
