package agent

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// DefaultListLimit bounds List when ListOptions.Limit is 0.
const DefaultListLimit = 100

// ListOptions filter List by Tether's search attributes; zero fields match
// any agent.
type ListOptions struct {
	Status eventlog.Status // idle or running
	Model  string          // provider/model, as TetherModel holds it
	Parent string          // the parent agent's ID
	// Parents, instead of Parent, matches the children of any of them.
	Parents []string
	// Roots, instead of Parent or Parents, matches agents without a parent.
	Roots bool
	Turn  *int // the last opened turn
	// TurnOp compares the turn with Turn: =, <, <=, > or >= ("" is =).
	TurnOp string
	// Waiting is what the agent waits for: approval, answer or wait; any
	// matches all three.
	Waiting string
	// WaitUntil, when set, matches agents whose earliest wait ends by then.
	WaitUntil time.Time
	// Prefix matches agents whose ID starts with it.
	Prefix string
	// Closed includes agents that have ended (their last run only).
	Closed bool
	// Ended matches only agents that have ended (their last run only).
	Ended bool
	Limit int // at most this many; 0 means DefaultListLimit
	// Build matches only agents whose current run this build drives
	// (Summary.Build); it implies WithBuild.
	Build string
	// WithBuild fills Summary.Build, Deployment and Versioning, at one
	// DescribeWorkflowExecution an agent (visibility lists no build).
	WithBuild bool
}

// Summary is one agent as Temporal's visibility store sees it: eventually
// consistent, so an agent may show its previous status for a moment.
type Summary struct {
	ID, RunID string
	// Status is idle or running for an open agent, starting while no
	// worker has run it (markStarting); for a closed one, how it ended
	// (signals.Ended: disposed, failed, terminated, canceled, timed-out).
	Status string
	// Model is provider/model as TetherModel holds it ("default" for a
	// part left to the worker until it resolved it: ModelShown).
	Model, Parent string
	Turn          int
	Started       time.Time
	Closed        time.Time // when it ended; zero while it is open
	TaskQueue     string
	// Waiting is what it waits for (approval, answer, wait), and until
	// when its earliest wait ends.
	Waiting   string
	WaitUntil time.Time
	// Build is the build ID of the worker build that drives the current
	// run, filled when ListOptions.WithBuild or Build asks (see builds.go):
	// the deployment version a versioned run is on, else the build that
	// completed its last workflow task; "" before any did.
	Build string
	// Deployment is the Worker Deployment of a versioned run, and
	// Versioning how it is versioned (pinned, auto-upgrade); both "" for
	// an unversioned one.
	Deployment, Versioning string
}

// Query is the visibility query for o. Values are quoted as the query
// language reads them, so no filter value can change the query's shape.
func (o ListOptions) Query() (string, error) {
	if err := o.check(); err != nil {
		return "", err
	}
	terms := []string{"WorkflowType = " + quote(signals.AgentWorkflow)}
	switch {
	case o.Ended:
		terms = append(terms, "ExecutionStatus != 'Running' AND ExecutionStatus != 'ContinuedAsNew'")
	case o.Closed:
		terms = append(terms, "ExecutionStatus != 'ContinuedAsNew'")
	default:
		terms = append(terms, "ExecutionStatus = 'Running'")
	}
	waiting := o.Waiting
	if waiting == WaitingAny {
		waiting = ""
		terms = append(terms, signals.AttrWaiting+" IS NOT NULL")
	}
	for _, f := range []struct{ attr, value string }{
		{signals.AttrStatus, string(o.Status)}, {signals.AttrModel, o.Model}, {signals.AttrParent, o.Parent},
		{signals.AttrWaiting, waiting},
	} {
		if f.value != "" {
			terms = append(terms, f.attr+" = "+quote(f.value))
		}
	}
	if len(o.Parents) > 0 {
		quoted := make([]string, len(o.Parents))
		for i, p := range o.Parents {
			quoted[i] = quote(p)
		}
		terms = append(terms, signals.AttrParent+" IN ("+strings.Join(quoted, ", ")+")")
	}
	if o.Roots {
		terms = append(terms, signals.AttrParent+" IS NULL")
	}
	if o.Turn != nil {
		terms = append(terms, fmt.Sprintf("%s %s %d", signals.AttrTurn, cmp.Or(o.TurnOp, "="), *o.Turn))
	}
	if !o.WaitUntil.IsZero() {
		terms = append(terms, signals.AttrWaitUntil+" <= "+quote(o.WaitUntil.UTC().Format(time.RFC3339)))
	}
	if o.Prefix != "" {
		terms = append(terms, "WorkflowId STARTS_WITH "+quote(o.Prefix))
	}
	if o.Build != "" {
		terms = append(terms, buildTerm(o.Build))
	}
	return strings.Join(terms, " AND "), nil
}

// WaitingAny is ListOptions.Waiting for an agent that waits for anything.
const WaitingAny = "any"

// check refuses the options no query can ask.
func (o ListOptions) check() error {
	switch {
	case o.Status != "" && o.Status != eventlog.StatusIdle && o.Status != eventlog.StatusRunning:
		return fmt.Errorf("%w: status %q: want idle or running", ErrBadFilter, o.Status)
	case o.Status != "" && o.Ended:
		return fmt.Errorf("%w: status %q of agents that have ended", ErrBadFilter, o.Status)
	case o.Parent != "" && len(o.Parents) > 0 || o.Roots && (o.Parent != "" || len(o.Parents) > 0):
		return fmt.Errorf("%w: Parent, Parents and Roots: give one", ErrBadFilter)
	case !slices.Contains([]string{"", "=", "<", "<=", ">", ">="}, o.TurnOp):
		return fmt.Errorf("%w: turn comparison %q: want =, <, <=, > or >=", ErrBadFilter, o.TurnOp)
	}
	return checkBuild(o.Build)
}

// quote makes s a string literal of Temporal's visibility query language,
// which reads a backslash as an escape.
func quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// List returns the agents o matches, newest first, and whether there are
// more than o.Limit.
func (r *Client) List(ctx context.Context, o ListOptions) ([]Summary, bool, error) {
	query, err := o.Query()
	if err != nil {
		return nil, false, err
	}
	limit := o.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	var out []Summary
	var token []byte
	for {
		resp, err := r.c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			PageSize: int32(min(limit+1-len(out), 1000)), Query: query, NextPageToken: token,
		})
		if err != nil {
			return nil, false, fmt.Errorf("list agents: %w", err)
		}
		page := make([]Summary, 0, len(resp.GetExecutions()))
		for _, ex := range resp.GetExecutions() {
			page = append(page, summary(ex))
		}
		out = append(out, r.builds(ctx, o, page)...)
		if token = resp.GetNextPageToken(); len(token) == 0 || len(out) > limit {
			more := len(out) > limit
			out = out[:min(len(out), limit)]
			r.markStarting(ctx, out)
			return out, more, nil
		}
	}
}

// ListPage returns one page of the agents o matches, at most size
// (DefaultListLimit when 0; o.Limit is not read), from the page token of
// the page before it (nil: the first), and the next page's token (nil
// after the last page). With o.Build a page may hold fewer (even none)
// while a next page follows. A token is only good for the same options.
func (r *Client) ListPage(ctx context.Context, o ListOptions, size int, token []byte) ([]Summary, []byte, error) {
	query, err := o.Query()
	if err != nil {
		return nil, nil, err
	}
	if size <= 0 {
		size = DefaultListLimit
	}
	resp, err := r.c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		PageSize: int32(min(size, 1000)), Query: query, NextPageToken: token,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("list agents: %w", err)
	}
	out := make([]Summary, 0, len(resp.GetExecutions()))
	for _, ex := range resp.GetExecutions() {
		out = append(out, summary(ex))
	}
	out = r.builds(ctx, o, out)
	r.markStarting(ctx, out)
	return out, resp.GetNextPageToken(), nil
}

// builds fills the page's builds when o asks, and keeps o.Build's.
func (r *Client) builds(ctx context.Context, o ListOptions, page []Summary) []Summary {
	if !o.WithBuild && o.Build == "" {
		return page
	}
	r.withBuilds(ctx, page)
	return keepBuild(page, o.Build)
}

// Count counts the agents o matches (o.Limit is not read; with o.Build,
// the agents a build has completed a workflow task of, on it or not).
func (r *Client) Count(ctx context.Context, o ListOptions) (int64, error) {
	query, err := o.Query()
	if err != nil {
		return 0, err
	}
	resp, err := r.c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Query: query})
	if err != nil {
		return 0, fmt.Errorf("count agents: %w", err)
	}
	return resp.GetCount(), nil
}

// summary reads an execution's search attributes. A value that is
// missing or does not decode stays zero: a listing shows what it can.
func summary(ex *workflowpb.WorkflowExecutionInfo) Summary {
	s := Summary{ID: ex.GetExecution().GetWorkflowId(), RunID: ex.GetExecution().GetRunId(), Started: ex.GetStartTime().AsTime(),
		TaskQueue: ex.GetTaskQueue()}
	fields := ex.GetSearchAttributes().GetIndexedFields()
	decode := func(name string, v any) { _ = converter.GetDefaultDataConverter().FromPayload(fields[name], v) }
	decode(signals.AttrStatus, &s.Status)
	decode(signals.AttrModel, &s.Model)
	decode(signals.AttrParent, &s.Parent)
	decode(signals.AttrTurn, &s.Turn)
	decode(signals.AttrWaiting, &s.Waiting)
	decode(signals.AttrWaitUntil, &s.WaitUntil)
	if st := ex.GetStatus(); st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		s.Status, s.Closed = endedWord(endedAs(st)), ex.GetCloseTime().AsTime()
	}
	return s
}
