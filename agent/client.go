package agent

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Client creates and attaches to agents (seed 003's factory and registry).
type Client struct {
	c         client.Client
	taskQueue string
	dc        converter.DataConverter
	streams   *http.Client // reads live token streams; nil: defaultStreamClient
	watches   *watches     // long polls on agents' histories, shared by handles
	noAttrs   bool         // start agents without search attributes
}

// Option configures a Client.
type Option func(*Client)

// WithDataConverter names the data converter c was dialed with, so the
// payloads the client cannot decode for us (the token stream's locator in
// heartbeat details) decode as the client's do. Required when payloads
// are encrypted; the default is the SDK's.
func WithDataConverter(dc converter.DataConverter) Option {
	return func(r *Client) {
		if dc != nil {
			r.dc = dc
		}
	}
}

// WithStreamClient reads live token streams (Handle.Tokens) with hc, e.g.
// one from NewStreamClient that trusts the CA of workers serving them over
// TLS. Its Timeout must be zero, or it cuts streams off.
func WithStreamClient(hc *http.Client) Option {
	return func(r *Client) { r.streams = hc }
}

// WithoutSearchAttributes starts agents without Tether's search
// attributes, for a namespace that has none registered: with workers run
// with --no-search-attributes (workflows.Config.NoSearchAttributes), which
// write none either. List, which reads them, then finds none of these
// agents, and Tree none of their children.
func WithoutSearchAttributes() Option {
	return func(r *Client) { r.noAttrs = true }
}

// New returns a Client over c for agents on taskQueue ("" = signals.TaskQueue).
func New(c client.Client, taskQueue string, opts ...Option) *Client {
	if taskQueue == "" {
		taskQueue = signals.TaskQueue
	}
	r := &Client{c: c, taskQueue: taskQueue, dc: converter.GetDefaultDataConverter(), watches: newWatches(c)}
	for _, o := range opts {
		o(r)
	}
	return r
}

// handle returns a Handle on this client's connections and converter.
func (r *Client) handle(id, runID string) *Handle {
	return &Handle{c: r.c, dc: r.dc, streams: r.streams, watches: r.watches, ID: id, RunID: runID}
}

// handleOn is handle for an agent whose task queue is known.
func (r *Client) handleOn(id, runID, queue string) *Handle {
	h := r.handle(id, runID)
	h.queue = queue
	return h
}

// CreateOptions configure a new agent.
type CreateOptions struct {
	// ID is the agent (= session = workflow) ID; empty makes one.
	ID      string
	Options signals.AgentOptions
	// First, when non-empty, is the agent's first followup.
	First string
}

// Create starts a new agent. Concurrent creates of one ID: exactly one
// succeeds; the others get ErrAlreadyExists and nothing is half-made. An ID
// is never reused, even after the agent was disposed.
func (r *Client) Create(ctx context.Context, o CreateOptions) (*Handle, error) {
	if o.ID == "" {
		o.ID = "agent-" + newID()
	}
	if err := signals.ValidateOptions(o.Options, nil, nil); err != nil {
		return nil, err
	}
	in := signals.AgentInput{Options: o.Options}
	if o.First != "" {
		m := signals.Message{ID: eventlog.MessageID(newID()), Content: o.First}
		if err := signals.ValidateMessage(m); err != nil {
			return nil, err
		}
		in.First = &m
	}
	run, err := r.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                                       o.ID,
		TaskQueue:                                r.taskQueue,
		WorkflowIDConflictPolicy:                 enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		WorkflowIDReusePolicy:                    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		TypedSearchAttributes:                    r.startAttributes(o.Options),
		StaticSummary:                            "agent " + modelName(o.Options),
		// When c also runs a worker on the queue (the demo, embedded use),
		// the first workflow task comes back in the start's response.
		EnableEagerStart: true,
	}, signals.AgentWorkflow, in)
	if err != nil {
		var started *serviceerror.WorkflowExecutionAlreadyStarted
		if errors.As(err, &started) {
			return nil, fmt.Errorf("%w: %s", ErrAlreadyExists, o.ID)
		}
		return nil, fmt.Errorf("create agent %s: %w", o.ID, err)
	}
	return r.handleOn(o.ID, run.GetRunID(), r.taskQueue), nil
}

// Attach returns a handle to an existing agent: ErrNotFound when there is
// none, a *ClosedError (errors.Is ErrClosed) saying how and why it ended
// when it has, with the handle, whose reads still answer.
func (r *Client) Attach(ctx context.Context, id string) (*Handle, error) {
	desc, err := r.c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		if isNotFound(err) {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		return nil, fmt.Errorf("attach agent %s: %w", id, err)
	}
	info := desc.GetWorkflowExecutionInfo()
	h := r.handleOn(id, info.GetExecution().GetRunId(), desc.GetExecutionConfig().GetTaskQueue().GetName())
	if st := info.GetStatus(); st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return h, h.closedErr(ctx, h.RunID, st)
	}
	return h, nil
}

// newID returns a random 64-bit ID (signals.DrawnID, 11 letters or
// digits): unique enough within one agent, and short, since a message ID
// recurs in its update and inbox events.
func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return string(signals.DrawnID(b))
}

// NewMessageID returns a fresh MessageID.
func NewMessageID() eventlog.MessageID { return eventlog.MessageID(newID()) }
