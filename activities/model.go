package activities

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Provider makes one model request. Implementations are safe for concurrent
// use, hold their own credentials, never retry by themselves, and return an
// *llm.Error for every failure.
type Provider interface {
	Complete(ctx context.Context, req llm.Request) (eventlog.AssistantMessage, error)
}

// Streamer is the optional streaming capability of a Provider, found by type
// assertion: emit is called, in order, for every delta as it arrives, and
// the result is the assembled message, exactly as Complete would return it.
type Streamer interface {
	Stream(ctx context.Context, req llm.Request, emit func(llm.Chunk)) (eventlog.AssistantMessage, error)
}

// DefaultModeler is the optional capability of a Provider that picks a
// model for a request naming none: DefaultModel names it, so the call's
// output records what was asked for (eventlog.AssistantMessage.DefaultModel)
// beside the model the provider says answered.
type DefaultModeler interface {
	DefaultModel() string
}

// ChunkWriter takes one attempt's chunks for live subscribers. Emit never
// blocks; Close(nil) marks the attempt done, Close(err) tells subscribers to
// discard its partial output.
type ChunkWriter interface {
	Emit(llm.Chunk)
	Close(err error)
}

// LiveStreams opens the live stream of one model call attempt and says
// where clients read it and with which token. Chunks never enter history.
type LiveStreams interface {
	Open(agent, run, activityID string, attempt int32) (ChunkWriter, signals.StreamLocator)
}

// ToolSpecs describes registered tools to the model.
type ToolSpecs interface {
	Specs(names []string) ([]llm.ToolSpec, error)
}

// ConversationReader returns the conversation a log reference points at.
type ConversationReader interface {
	Conversation(ctx context.Context, ref signals.LogRef) ([]eventlog.Message, error)
}

// HeaderReader reads the last request/header of a log prefix recorded in
// the prefix's own run, and false when there is none. A model call under
// loop.RulesCallFromHeader leaves its configuration to it (see
// signals.ModelInput); LogReader is one.
type HeaderReader interface {
	Header(ctx context.Context, ref signals.LogRef) (eventlog.RequestHeader, bool, error)
}

// Model is the model activity: one provider round trip per attempt.
type Model struct {
	Providers       map[string]Provider
	DefaultProvider string
	Tools           ToolSpecs
	Log             ConversationReader
	HeartbeatEvery  time.Duration
	// Streams, when set, publishes the chunks of streaming providers live.
	Streams LiveStreams
	// StreamHooks are the llm/stream hooks agents may enable, by name.
	StreamHooks map[string]StreamHook
	// MaxReplyBytes bounds a reply as JSON (llm.BoundTo; 0:
	// llm.MaxReplyBytes). Over 2 MiB the worker needs a blob store.
	MaxReplyBytes int
}

// Validate checks the activity's dependencies when the worker starts.
func (m *Model) Validate() error {
	switch {
	case len(m.Providers) == 0:
		return errors.New("model activity: no providers")
	case m.Providers[m.DefaultProvider] == nil:
		return fmt.Errorf("model activity: default provider %q is not registered", m.DefaultProvider)
	case m.Tools == nil || m.Log == nil:
		return errors.New("model activity: tools and log reader are required")
	}
	for name, p := range m.Providers {
		if p == nil {
			return fmt.Errorf("model activity: provider %q is nil", name)
		}
	}
	return nil
}

// Call makes the model request described by in. The conversation is read
// from the agent's log, never carried in the input.
//
// A failure of the call itself (the provider's error, or running past the
// call's time limit) is final: it closes the step, and the workflow's
// request-error hooks decide whether a retry turn follows. A compaction
// summary is the exception: its own failures are retried up to its attempt
// budget. An attempt lost to a fault (the worker died or lost the server)
// is retried by Temporal and recorded as nothing.
func (m *Model) Call(ctx context.Context, in signals.ModelInput) (signals.ModelOutput, error) {
	in, err := m.configured(ctx, in)
	if err != nil {
		return signals.ModelOutput{}, err
	}
	name := in.Call.Provider
	if name == "" {
		name = m.DefaultProvider
	}
	p, ok := m.Providers[name]
	if !ok {
		return signals.ModelOutput{}, failure(eventlog.Failure{
			Kind: eventlog.FailureInvalidRequest, Message: fmt.Sprintf("unknown provider %q", name),
		})
	}
	// Heartbeat for the whole attempt: reading the log can wait on a
	// workflow whose worker just died, and a silent model may think long.
	// A streaming call's heartbeats carry its locator, a summary's the
	// count of its own failures.
	w, details := m.open(ctx, p, in)
	prior := priorFailures(ctx)
	if in.Call.Summarize != nil {
		details = []any{attemptRecord{Failures: prior}}
	}
	stop := heartbeat(ctx, m.HeartbeatEvery, details...)
	defer stop()
	req, err := m.request(ctx, in)
	if err != nil {
		closeStream(w, err)
		return signals.ModelOutput{}, err
	}
	timing := startTiming()
	own, limit, cancel := ownContext(ctx)
	defer cancel()
	out, err := m.complete(own, p, req, w, in.Call.Stream, timing)
	if err != nil {
		f, fault := callFailure(ctx, own, limit, err)
		switch {
		case fault != nil:
			return signals.ModelOutput{}, fault
		case in.Call.Summarize != nil && f.Kind.Retryable():
			return signals.ModelOutput{}, ownFailure(ctx, stop, prior, budget(in.Call.Summarize.Attempts),
				string(f.Kind), f.Message, f)
		}
		return signals.ModelOutput{}, failure(f, timing.summary())
	}
	out.Provider, out.Stream = name, timing.summary()
	if out.Model == "" {
		out.Model = req.Model
	}
	if d, ok := p.(DefaultModeler); ok && in.Call.Model == "" {
		out.DefaultModel = d.DefaultModel()
	}
	return llm.BoundTo(out, m.MaxReplyBytes), nil
}

// configured is in with the configuration a call under
// loop.RulesCallFromHeader leaves out: turn and step from the activity
// ID, the rest from the request/header its log recorded last. A call that
// names any of it, and a summary, is taken as it is; so is a call whose
// log holds no header in its run, which only a call recorded before those
// rules can be (such a call names everything the header would, and its
// header, recorded just before it, says the same).
func (m *Model) configured(ctx context.Context, in signals.ModelInput) (signals.ModelInput, error) {
	c := &in.Call
	if c.Summarize != nil || c.Named() {
		return in, nil
	}
	if c.Turn == 0 {
		c.Turn, c.Step, _ = signals.ParseModelActivityID(activity.GetInfo(ctx).ActivityID)
	}
	hr, ok := m.Log.(HeaderReader)
	if !ok {
		return in, nil
	}
	h, found, err := hr.Header(ctx, ownRef(ctx, in.Ref))
	if err != nil { // as for the conversation: a fault, retried
		return in, temporal.NewApplicationError(tools.Truncate(err.Error(), MaxErrorBytes), ErrLogUnavailable)
	}
	if found {
		in.Call = c.FromHeader(h)
	}
	return in, nil
}

// SummarizerPrompt is the system prompt of a compaction call.
const SummarizerPrompt = "You summarize conversations between a user, an assistant and its tools. " +
	"Write a concise summary that preserves every fact, decision, open question and tool result " +
	"the assistant still needs. Reply with the summary only."

// summaryRequest asks for a summary of the conversation but its last keep
// messages, rendered as a transcript, without tools.
func summaryRequest(call signals.CallConfig, msgs []eventlog.Message, keep int) llm.Request {
	var b strings.Builder
	body := msgs
	if len(body) > 0 && body[0].Role == eventlog.RoleSystem {
		fmt.Fprintf(&b, "system: %s\n", body[0].Content)
		body = body[1:]
	}
	for _, m := range body[:max(0, len(body)-keep)] {
		fmt.Fprintf(&b, "%s: %s", m.Role, m.Content)
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, " [calls %s %s]", c.Name, c.Arguments)
		}
		b.WriteString("\n")
	}
	return llm.Request{Model: call.Model, MaxTokens: call.MaxTokens, Messages: []eventlog.Message{
		{Role: eventlog.RoleSystem, Content: SummarizerPrompt},
		{Role: eventlog.RoleUser, Content: "Summarize this conversation:\n\n" + b.String()},
	}}
}

// open starts the live stream of this attempt when the provider streams.
func (m *Model) open(ctx context.Context, p Provider, in signals.ModelInput) (ChunkWriter, []any) {
	if _, ok := p.(Streamer); !ok || m.Streams == nil || in.Call.Summarize != nil {
		return nil, nil
	}
	info := activity.GetInfo(ctx)
	w, loc := m.Streams.Open(info.WorkflowExecution.ID, info.WorkflowExecution.RunID, info.ActivityID, info.Attempt)
	return w, []any{loc}
}

// complete makes the call through the agent's stream hooks, streaming it to
// w when there is one.
func (m *Model) complete(ctx context.Context, p Provider, req llm.Request, w ChunkWriter, hooks []string, t *callTiming) (eventlog.AssistantMessage, error) {
	call, err := chainStream(m.StreamHooks, hooks, func(ctx context.Context, req llm.Request, emit func(llm.Chunk)) (eventlog.AssistantMessage, error) {
		if w == nil {
			return p.Complete(ctx, req)
		}
		return p.(Streamer).Stream(ctx, req, t.counting(emit))
	})
	if err != nil {
		closeStream(w, err)
		return eventlog.AssistantMessage{}, llm.Fail(eventlog.FailureInvalidRequest, 0, 0, err.Error(), nil)
	}
	emit := func(llm.Chunk) {}
	if w != nil {
		emit = w.Emit
	}
	out, err := call(ctx, req, emit)
	closeStream(w, err)
	return out, err
}

func closeStream(w ChunkWriter, err error) {
	if w != nil {
		w.Close(err)
	}
}

func (m *Model) request(ctx context.Context, in signals.ModelInput) (llm.Request, error) {
	specs, err := m.specs(ctx, in)
	if err != nil {
		return llm.Request{}, err
	}
	msgs, err := m.Log.Conversation(ctx, ownRef(ctx, in.Ref))
	if err != nil {
		// The workflow is reachable again once it has a worker: a fault,
		// retried by Temporal without counting.
		return llm.Request{}, temporal.NewApplicationError(tools.Truncate(err.Error(), MaxErrorBytes), ErrLogUnavailable)
	}
	if s := in.Call.Summarize; s != nil {
		return summaryRequest(in.Call, msgs, s.Keep), nil
	}
	return llm.Request{Model: in.Call.Model, MaxTokens: in.Call.MaxTokens, Effort: in.Call.Effort, Messages: msgs, Tools: specs,
		CacheKey: ownRef(ctx, in.Ref).AgentID}, nil
}

// callFailure normalises a failed provider call. A fault (the attempt was
// canceled with its turn, or lost: the server stopped taking its
// heartbeats) comes back as an error to return as it is, never as a
// failure of the call; running past the call's own time limit is a timeout.
func callFailure(ctx, own context.Context, limit time.Duration, err error) (eventlog.Failure, error) {
	switch {
	case ctx.Err() != nil:
		return eventlog.Failure{}, ctx.Err()
	case errors.Is(own.Err(), context.DeadlineExceeded):
		return eventlog.Failure{Kind: eventlog.FailureTimeout, Message: fmt.Sprintf("model call did not finish within %s", limit)}, nil
	}
	if e, ok := llm.AsError(err); ok {
		return e.Failure, nil
	}
	return eventlog.Failure{Kind: eventlog.FailureUnknown, Message: err.Error()}, nil
}

// failure is the typed, final error of a failed call: its Type is the
// failure kind; its details the eventlog.Failure, then the call's timing if
// any. It is never retried by Temporal, whatever the kind: the failure
// closes the step and the request-error hooks decide about a retry turn.
func failure(f eventlog.Failure, timing ...*eventlog.StreamTiming) error {
	f.Message = tools.Truncate(f.Message, MaxErrorBytes)
	details := []any{f}
	if len(timing) > 0 && timing[0] != nil {
		details = append(details, *timing[0])
	}
	return temporal.NewApplicationErrorWithOptions(f.Message, string(f.Kind), temporal.ApplicationErrorOptions{
		NonRetryable: true,
		Details:      details,
	})
}

// ownRef completes a reference to the activity's own workflow's log.
func ownRef(ctx context.Context, ref signals.LogRef) signals.LogRef {
	if ref.AgentID == "" {
		info := activity.GetInfo(ctx)
		ref.AgentID, ref.RunID = info.WorkflowExecution.ID, info.WorkflowExecution.RunID
	}
	return ref
}
