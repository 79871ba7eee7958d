package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Spawn asks the agent to start a detached child agent on args.Task: the
// child's options are the agent's, shaped by args (never more tools than
// the agent's), and each turn it settles arrives in the agent's inbox as a
// message from it (on args.List, next-turn by default). It returns the
// child's ID; Attach to it for its own log. Transient server failures are
// retried under the spawn's ID, which the agent never takes twice; a
// *DeliveryUnknownError says when the deadline ended first.
func (h *Handle) Spawn(ctx context.Context, args signals.SpawnArgs) (string, error) {
	sp := signals.Spawn{SpawnArgs: args, ID: NewMessageID()}
	if err := signals.ValidateSpawnArgs(args, args.Tools); err != nil { // the agent checks the tools
		return "", err
	}
	out, err := deliver(ctx, h, request[signals.Spawn, signals.Spawned]{u: signals.SpawnUpdate, id: string(sp.ID), in: sp})
	if err == nil && out.ChildID == "" {
		return "", fmt.Errorf("spawn agent %s: %w: the spawn %s was delivered, by an attempt whose answer was lost; "+
			"the agent's log names the child (child/started)", h.ID, ErrChildUnknown, sp.ID)
	}
	return out.ChildID, err
}

// ErrChildUnknown: a spawn was delivered, but its answer, the child's ID,
// was lost on the way (a retried attempt found it taken).
var ErrChildUnknown = errors.New("child ID unknown")

// Approve lets a tool call that waits for approval run. decider and reason
// are recorded in the agent's log.
func (h *Handle) Approve(ctx context.Context, callID, decider, reason string) (signals.Decided, error) {
	return h.decide(ctx, signals.ApproveUpdate, callID, decider, reason)
}

// Deny refuses a tool call that waits for approval; the model reads the
// reason as the call's error result.
func (h *Handle) Deny(ctx context.Context, callID, decider, reason string) (signals.Decided, error) {
	return h.decide(ctx, signals.DenyUpdate, callID, decider, reason)
}

// Answer answers an ask_human question; the answer is the call's result.
func (h *Handle) Answer(ctx context.Context, callID, decider, answer string) (signals.Decided, error) {
	return h.decide(ctx, signals.AnswerUpdate, callID, decider, answer)
}

// decide sends a decision update. An unknown or already decided call, or a
// disposed agent, is a typed error (signals.ErrNoSuchDecision,
// signals.ErrDisposed). Transient server failures are retried under the
// decision's ID, which the agent never takes twice; a
// *DeliveryUnknownError says when the deadline ended first. A decision
// taken by an attempt whose answer was lost answers Seq -1 (unknown).
func (h *Handle) decide(ctx context.Context, u signals.Update[signals.Decision, signals.Decided], callID, decider, text string) (signals.Decided, error) {
	d := signals.Decision{ID: NewMessageID(), CallID: callID, Decider: decider, Text: text}
	if err := signals.ValidateDecision(d); err != nil {
		return signals.Decided{}, err
	}
	out, err := deliver(ctx, h, request[signals.Decision, signals.Decided]{u: u, id: string(d.ID), in: d})
	if err == nil && out.CallID == "" { // taken by an attempt whose answer was lost: its position is unknown
		out = signals.Decided{CallID: callID, Seq: -1}
	}
	return out, err
}

// Node is one agent of a tree: its summary, its usage, its children. Its
// Status is idle or running while its workflow is open, and "closed (how)"
// once it has closed, how being completed, failed, canceled, terminated or
// timed_out: a closed agent's status query still answers, from its last
// state, and would say idle.
type Node struct {
	Summary
	Usage    eventlog.Usage
	Children []*Node
}

// Tree reads the tree of agents under root: every agent whose TetherParent
// names an agent of the tree, with its status, turn, model and usage. An
// agent that has ended reads "closed (how it ended)" (Node), with its last
// turn and usage when its status query still answers. Each
// level of the tree is one visibility query (per treeParents parents), and
// the agents are asked for their status treeQueries at a time. An agent
// already in the tree is not listed again, so a forged TetherParent cannot
// make it loop.
func (r *Client) Tree(ctx context.Context, root string) (*Node, error) {
	desc, err := r.c.DescribeWorkflowExecution(ctx, root, "")
	switch {
	case isNotFound(err):
		return nil, fmt.Errorf("%w: %s", ErrNotFound, root)
	case err != nil:
		return nil, fmt.Errorf("tree of %s: %w", root, err)
	}
	top := treeNode(summary(desc.GetWorkflowExecutionInfo()))
	all, seen := []*Node{top}, map[string]bool{root: true}
	for level := []*Node{top}; len(level) > 0; {
		var next []*Node
		for batch := range slices.Chunk(level, treeParents) {
			byID := map[string]*Node{}
			ids := make([]string, len(batch))
			for i, n := range batch {
				byID[n.ID], ids[i] = n, n.ID
			}
			kids, _, err := r.List(ctx, ListOptions{Parents: ids, Closed: true, Limit: maxTreeChildren})
			if err != nil {
				r.fill(ctx, all)
				return top, fmt.Errorf("tree of %s: %w", root, err)
			}
			for _, k := range kids {
				parent := byID[k.Parent]
				if parent == nil || seen[k.ID] {
					continue
				}
				seen[k.ID] = true
				c := treeNode(k)
				parent.Children = append(parent.Children, c)
				next = append(next, c)
			}
		}
		all = append(all, next...)
		level = next
	}
	r.fill(ctx, all)
	return top, nil
}

// Bounds of Tree: the children read of one level's batch of parents, the
// parents one query names, the status queries in flight.
const (
	maxTreeChildren = 1000
	treeParents     = 100
	treeQueries     = 4
)

// treeNode is s as a node of a tree, read closed when visibility says so.
func treeNode(s Summary) *Node {
	if closures[s.Status] {
		s.Status = closedStatus(s.Status)
	}
	return &Node{Summary: s}
}

// closures are the ways a workflow closes, as Summary.Status names them.
// Continued-as-new is not one: the agent goes on in its next run.
var closures = map[string]bool{"completed": true, "failed": true, "canceled": true, "terminated": true, "timed_out": true}

// endedAs names a workflow status as Summary.Status does: completed,
// terminated, timed_out, ...
func endedAs(st enumspb.WorkflowExecutionStatus) string {
	return lower(enumspb.WorkflowExecutionStatus_name[int32(st)], "WORKFLOW_EXECUTION_STATUS_")
}

// lower is an enum's proto name (its _name map's, WORKFLOW_EXECUTION_STATUS_TIMED_OUT;
// String() says TimedOut) without its prefix, in lower case: timed_out.
func lower(name, prefix string) string { return strings.ToLower(strings.TrimPrefix(name, prefix)) }

func closedStatus(how string) string { return "closed (" + how + ")" }

// fill completes the nodes with their status, turn and usage,
// treeQueries at a time; a node that does not answer keeps what
// visibility recorded.
func (r *Client) fill(ctx context.Context, nodes []*Node) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, treeQueries)
	for _, n := range nodes {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			r.fillNode(ctx, n)
		})
	}
	wg.Wait()
}

// fillNode asks n's latest run for its status, not asked when the run
// has closed: n is then closed, with how it ended, and its last turn and
// usage come from the status query asked again without the condition. A
// node no worker answers for within a few seconds keeps what visibility
// recorded.
func (r *Client) fillNode(ctx context.Context, n *Node) {
	h := r.handle(n.ID, "")
	st, err := queryRun(ctx, h, "", signals.StatusQuery, struct{}{}, notReadyOnly, true)
	var closed *ClosedError
	switch {
	case errors.As(err, &closed):
		n.Status = closedStatus(closed.How)
		if st, err := query(ctx, h, signals.StatusQuery, struct{}{}); err == nil {
			n.Usage, n.Turn = st.Usage, st.Turn
		}
	case err == nil:
		n.Usage, n.Status, n.Turn = st.Usage, string(st.Status), st.Turn
	}
}
