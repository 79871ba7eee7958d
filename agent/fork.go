package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// ForkOption changes what Fork makes.
type ForkOption func(*forkOptions)

type forkOptions struct {
	id, replace, appended string
}

// WithForkID names the fork (the default draws "agent-<id>").
func WithForkID(id string) ForkOption { return func(o *forkOptions) { o.id = id } }

// ReplaceLast gives the last user message of the fork's conversation this
// text instead of the source's (session/forked records both).
func ReplaceLast(text string) ForkOption { return func(o *forkOptions) { o.replace = text } }

// AppendMessage delivers text to the fork as its first followup, which
// opens its first turn (or its next, when forked inside a turn).
func AppendMessage(text string) ForkOption { return func(o *forkOptions) { o.appended = text } }

// ForkPositionError refuses a fork position, naming the nearest positions
// that can be forked (-1: none on that side).
type ForkPositionError = loop.ForkPositionError

// Fork starts a new agent whose first run is seeded with this agent's
// session log folded up to and including position at (loop.ForkSeed says
// which positions can be forked and what the seed keeps). The log is read
// from the agent's history across its chain of runs, so a closed agent or
// one no worker serves can be forked; this agent is left untouched. The
// fork starts on this agent's task queue with its options (as a root agent:
// a forked child has no parent), records session/forked as its first event
// and, when this agent carries search attributes, TetherForkOf = this ID
// (Forks). A position that cannot be forked fails with a
// *ForkPositionError, one outside the positions its history holds with a
// *ForkRangeError (ErrForkOutOfRange); an ID in use with ErrAlreadyExists.
func (h *Handle) Fork(ctx context.Context, at int64, opts ...ForkOption) (*Handle, error) {
	var o forkOptions
	for _, f := range opts {
		f(&o)
	}
	src, err := h.readChain(ctx)
	if err != nil {
		return nil, err
	}
	if first, last := src.prefix.State.Len, src.prefix.State.Len+int64(len(src.prefix.Events))-1; at < first || at > last {
		return nil, &ForkRangeError{Agent: h.ID, At: at, First: first, Last: last}
	}
	seed, err := loop.ForkSeed(src.prefix, eventlog.SessionForked{Source: h.ID, Run: src.runAt(at), At: at, ReplacedLast: o.replace})
	if err != nil {
		return nil, fmt.Errorf("fork %s: %w", h.ID, err)
	}
	in := signals.AgentInput{Options: src.options, Seed: &seed}
	in.Options.Parent = ""
	if o.appended != "" {
		m := signals.Message{ID: NewMessageID(), Content: o.appended}
		if err := signals.ValidateMessage(m); err != nil {
			return nil, err
		}
		in.First = &m
	}
	return h.startFork(ctx, cmp.Or(o.id, "agent-"+newID()), in, src)
}

// startFork starts the fork's workflow.
func (h *Handle) startFork(ctx context.Context, id string, in signals.AgentInput, src chain) (*Handle, error) {
	opts := client.StartWorkflowOptions{
		ID: id, TaskQueue: src.queue,
		WorkflowIDConflictPolicy:                 enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		WorkflowIDReusePolicy:                    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		StaticSummary:                            fmt.Sprintf("agent %s, fork of %s at %d", modelName(in.Options), h.ID, in.Seed.Fork.At),
	}
	if src.attrs {
		sel := in.Seed.Selection
		opts.TypedSearchAttributes = temporal.NewSearchAttributes(
			temporal.NewSearchAttributeKeyKeyword(signals.AttrStatus).ValueSet(string(eventlog.StatusIdle)),
			temporal.NewSearchAttributeKeyInt64(signals.AttrTurn).ValueSet(int64(in.Seed.State.Turn)),
			temporal.NewSearchAttributeKeyKeyword(signals.AttrModel).ValueSet(signals.ModelLabel(sel)),
			temporal.NewSearchAttributeKeyKeyword(signals.AttrForkOf).ValueSet(h.ID),
		)
	}
	run, err := h.c.ExecuteWorkflow(ctx, opts, signals.AgentWorkflow, in)
	if err != nil {
		var started *serviceerror.WorkflowExecutionAlreadyStarted
		if errors.As(err, &started) {
			return nil, fmt.Errorf("%w: %s", ErrAlreadyExists, id)
		}
		return nil, fmt.Errorf("fork agent %s as %s: %w", h.ID, id, err)
	}
	return &Handle{c: h.c, dc: h.dc, streams: h.streams, watches: h.watches, queue: src.queue, ID: id, RunID: run.GetRunID()}, nil
}

// chain is an agent's log as its history holds it, for forking.
type chain struct {
	runs    []projection.Run
	prefix  loop.Prefix
	options signals.AgentOptions // the latest run's
	queue   string
	attrs   bool // the agent carries Tether's search attributes
}

// runAt is the run that recorded position at.
func (c chain) runAt(at int64) string {
	id := ""
	for _, r := range c.runs {
		if r.Base <= at {
			id = r.ID
		}
	}
	return id
}

// readChain reads the agent's chain of runs from history and projects its
// log.
func (h *Handle) readChain(ctx context.Context) (chain, error) {
	desc, err := h.c.DescribeWorkflowExecution(ctx, h.ID, "")
	if err != nil {
		if isNotFound(err) {
			return chain{}, fmt.Errorf("%w: %s", ErrNotFound, h.ID)
		}
		return chain{}, fmt.Errorf("read agent %s: %w", h.ID, err)
	}
	c := chain{queue: desc.GetExecutionConfig().GetTaskQueue().GetName()}
	_, c.attrs = desc.GetWorkflowExecutionInfo().GetSearchAttributes().GetIndexedFields()[signals.AttrStatus]
	histories, err := projection.FetchChain(ctx, h.c, h.ID)
	if err != nil {
		return chain{}, err
	}
	p := projection.Using(h.dc)
	if c.runs, err = p.Runs(histories...); err != nil {
		return chain{}, fmt.Errorf("read agent %s: %w", h.ID, err)
	}
	log, err := p.FromChain(histories...)
	if err != nil {
		return chain{}, fmt.Errorf("project agent %s: %w", h.ID, err)
	}
	first := c.runs[0].Input
	c.options = c.runs[len(c.runs)-1].Input.Options
	c.prefix = loop.FreshPrefix(first.Options, log)
	if s := first.Seed; s != nil && s.Fork != nil { // a fork of a fork
		c.prefix = loop.Prefix{State: s.State, Context: s.Context, Events: log}
	}
	return c, nil
}

// Forks lists the IDs of the agents forked from this one (TetherForkOf),
// newest first, open or closed.
func (h *Handle) Forks(ctx context.Context) ([]string, error) {
	query := fmt.Sprintf("WorkflowType = %s AND %s = %s AND ExecutionStatus != 'ContinuedAsNew'",
		quote(signals.AgentWorkflow), signals.AttrForkOf, quote(h.ID))
	var out []string
	var token []byte
	for {
		resp, err := h.c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: query, NextPageToken: token})
		if err != nil {
			return nil, fmt.Errorf("list forks of %s: %w", h.ID, err)
		}
		for _, ex := range resp.GetExecutions() {
			out = append(out, ex.GetExecution().GetWorkflowId())
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			return out, nil
		}
	}
}

// Lineage is what an agent's history says of where it came from and what
// its model sees.
type Lineage struct {
	// Fork is the agent's session/forked event; nil when it was not forked.
	Fork *eventlog.SessionForked
	// Conversation is the model-facing conversation its log folds to, what
	// the fork began with first for a fork.
	Conversation []eventlog.Message
}

// Lineage reads the agent's chain of runs from history (with or without a
// worker) and folds its conversation: the log as far as history holds it,
// which is all of it once the agent is idle.
func (h *Handle) Lineage(ctx context.Context) (Lineage, error) {
	src, err := h.readChain(ctx)
	if err != nil {
		return Lineage{}, err
	}
	var l Lineage
	if s := src.runs[0].Input.Seed; s != nil {
		l.Fork = s.Fork
	}
	conv := eventlog.RestoreConversation(src.prefix.Context)
	for _, env := range src.prefix.Events {
		e, err := eventlog.Decode(env)
		if err != nil {
			return Lineage{}, fmt.Errorf("read agent %s: %w", h.ID, err)
		}
		conv.Apply(e)
	}
	l.Conversation = conv.Messages()
	return l, nil
}
