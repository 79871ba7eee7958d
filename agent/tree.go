package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Node is one agent of a tree: its summary, its usage, its children. Its
// Status is a word of the views' vocabulary (Summary.Status): idle,
// running, disposing or starting while its workflow is open, how it ended
// once it has closed (signals.Ended: disposed, failed, ...). A closed
// agent's status query still answers, from its last state, and would say
// idle.
type Node struct {
	Summary
	Usage    eventlog.Usage
	Children []*Node
}

// Tree reads the tree of agents under root: every agent whose TetherParent
// names an agent of the tree, with its status, turn, model and usage. An
// agent that has ended reads how it ended (Node), with its last turn and
// usage when its status query still answers. Each level of the tree is one
// visibility query (per treeParents parents), and the agents are asked
// for their status treeQueries at a time. An agent already in the tree is
// not listed again, so a forged TetherParent cannot make it loop.
func (r *Client) Tree(ctx context.Context, root string) (*Node, error) {
	desc, err := r.c.DescribeWorkflowExecution(ctx, root, "")
	switch {
	case isNotFound(err):
		return nil, fmt.Errorf("%w: %s", ErrNotFound, root)
	case err != nil:
		return nil, fmt.Errorf("tree of %s: %w", root, err)
	}
	self := []Summary{summary(desc.GetWorkflowExecutionInfo())}
	r.markStarting(ctx, self)
	top := &Node{Summary: self[0]}
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
				c := &Node{Summary: k}
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

// fill completes the nodes with their status, turn and usage,
// treeQueries at a time; a node that does not answer keeps what
// visibility recorded. A starting node is not asked: no worker polls its
// queue to answer.
func (r *Client) fill(ctx context.Context, nodes []*Node) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, treeQueries)
	for _, n := range nodes {
		if n.Status == StatusStarting {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			r.fillNode(ctx, n)
		})
	}
	wg.Wait()
}

// fillNode asks n's latest run for its status, not asked when the run
// has closed: n then reads how it ended, and its last turn and usage come
// from the status query asked again without the condition. A node no
// worker answers for within a few seconds keeps what visibility recorded.
func (r *Client) fillNode(ctx context.Context, n *Node) {
	h := r.handle(n.ID, "")
	st, err := queryRun(ctx, h, "", signals.StatusQuery, struct{}{}, notReadyOnly, true)
	var closed *ClosedError
	switch {
	case errors.As(err, &closed):
		n.Status = endedWord(closed.How)
		if st, err := query(ctx, h, signals.StatusQuery, struct{}{}); err == nil {
			n.Usage, n.Turn = st.Usage, st.Turn
		}
	case err == nil:
		n.Usage, n.Status, n.Turn = st.Usage, OpenStatus(st), st.Turn
	}
}
