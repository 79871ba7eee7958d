package agent

import (
	"context"
	"errors"
	"sync"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// nodeReading is what one agent of a tree said when asked: its status
// query's answer while open, its result or last status once closed.
type nodeReading struct {
	view   *signals.StatusView // the open agent's status
	closed *ClosedError        // it had closed after all
	result *signals.AgentResult
	last   *signals.StatusView // the closed agent's last status
}

// fill completes the tree's agents with their status, turn and usage,
// treeQueries at a time, then applies the answers parent before child: a
// parent's status gives its children's modes, reports and spending, an
// agent's own answer its status, turn and usage. An agent that does not
// answer keeps what visibility and its parent's log recorded. A starting
// agent is not asked: no worker polls its queue to answer.
func (t *treeRead) fill(ctx context.Context) {
	readings := make([]nodeReading, len(t.all))
	var wg sync.WaitGroup
	sem := make(chan struct{}, treeQueries)
	for i, n := range t.all {
		if n.Status == StatusStarting {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			readings[i] = t.r.readNode(ctx, n)
		})
	}
	wg.Wait()
	for i, n := range t.all {
		n.apply(readings[i])
	}
}

// readNode asks n's latest run for its status while n is open; the query
// is not answered by a run that has closed, which then reads how it ended.
// A closed agent whose usage nothing gave yet is read from its result
// (signals.AgentResult), with no worker replaying it, or else, for one
// that ended without a result, from its status query asked without the
// condition. An agent no worker answers for within a few seconds is left
// as it is.
func (r *Client) readNode(ctx context.Context, n *Node) nodeReading {
	var out nodeReading
	h := r.handle(n.ID, "")
	if n.Open() {
		st, err := queryRun(ctx, h, "", signals.StatusQuery, struct{}{}, notReadyOnly, true)
		if err == nil {
			out.view = &st
			return out
		}
		if !errors.As(err, &out.closed) {
			return out
		}
	}
	if n.Usage != (eventlog.Usage{}) {
		return out
	}
	var res signals.AgentResult
	if r.c.GetWorkflow(ctx, n.ID, n.RunID).Get(ctx, &res) == nil {
		out.result = &res
		return out
	}
	if st, err := query(ctx, h, signals.StatusQuery, struct{}{}); err == nil {
		out.last = &st
	}
	return out
}

// apply sets what n's reading says of n and of its children.
func (n *Node) apply(rd nodeReading) {
	if rd.closed != nil {
		n.Status, n.ended = endedWord(rd.closed.How), true
	}
	if st := rd.view; st != nil {
		n.Status, n.Turn = OpenStatus(*st), st.Turn
		n.setUsage(st.Usage)
		for _, cv := range st.Children {
			for _, c := range n.Children {
				if c.ID == cv.ID {
					c.Mode, c.Settled = cv.Mode, cv.Settled
					if c.Usage == (eventlog.Usage{}) {
						c.Usage = cv.Spent
					}
				}
			}
		}
	}
	if rd.result != nil {
		n.setUsage(rd.result.Usage)
	}
	if st := rd.last; st != nil {
		n.Turn = st.Turn
		n.setUsage(st.Usage)
	}
}

// setUsage sets n's usage unless u is empty: an answer that says nothing
// was spent does not erase what a report said.
func (n *Node) setUsage(u eventlog.Usage) {
	if u != (eventlog.Usage{}) {
		n.Usage = u
	}
}
