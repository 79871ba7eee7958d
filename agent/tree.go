package agent

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/tetherdev/tether/eventlog"
)

// Node is one agent of a tree: its summary, its usage, its children. Its
// Status is a word of the views' vocabulary (Summary.Status): idle,
// running, disposing or starting while its workflow is open, how it ended
// once it has closed (signals.Ended: disposed, failed, ...). A closed
// agent's status query still answers, from its last state, and would say
// idle.
type Node struct {
	Summary
	Usage eventlog.Usage
	// Mode is how its parent spawned it and Settled the turns it reported
	// to it, as its parent's log (TreeOptions.Children) or status query
	// says; an agent started past Tether's spawn has neither.
	Mode     eventlog.ChildMode
	Settled  int
	Children []*Node
	// More counts its children that TreeOptions' bounds left out.
	More int
	// ended: it has closed, though visibility may not say so yet (its
	// parent's log or its status query said).
	ended bool
}

// Open reports whether the agent may still change: as far as the tree's
// reading tells, its workflow has not closed.
func (n *Node) Open() bool { return n.Closed.IsZero() && !n.ended }

// TreeOptions shape what TreeWith reads; the zero value reads the whole
// tree, as Tree does.
type TreeOptions struct {
	// Children, when not nil, are the root's children as its log records
	// them, in its order: the tree's first level, each there even while
	// visibility does not list it yet (it lags a moment; its Status is
	// then ""), and one the log says ended reads so whatever visibility
	// says. Visibility's other children of the root are not read. The
	// root, which the caller has read, is then neither described nor
	// asked: the Node returned holds only its ID, children and More.
	Children []Child
	// MaxDepth bounds the levels read under the root and MaxNodes the
	// agents; 0 is no bound. An agent beyond either is counted on its
	// parent's More, not read, and its children are not counted.
	MaxDepth, MaxNodes int
}

// Child is a child agent as its parent's log records it.
type Child struct {
	ID      string
	Mode    eventlog.ChildMode
	Settled int            // turns it reported to its parent
	Usage   eventlog.Usage // what its reports say it spent
	// Ended is how its workflow closed, as the log records it (Temporal's
	// word, completed, or the views', disposed); "" while it runs.
	Ended string
}

// Tree reads the tree of agents under root: every agent whose TetherParent
// names an agent of the tree, with its status, turn, model and usage. It
// is TreeWith with no options.
func (r *Client) Tree(ctx context.Context, root string) (*Node, error) {
	return r.TreeWith(ctx, root, TreeOptions{})
}

// TreeWith reads the tree of agents under root as o says. Each agent's
// children are in the order they started (the root's, given, in the log's
// order). An agent that has ended reads how it ended (Node), with its last
// turn and usage from its result, or else from its status query when that
// still answers. Each level of the tree is one visibility query (per
// treeParents parents), and the agents are asked for their status
// treeQueries at a time. An agent already in the tree is not listed again,
// so a forged TetherParent cannot make it loop. On an error the tree read
// so far comes back with it.
func (r *Client) TreeWith(ctx context.Context, root string, o TreeOptions) (*Node, error) {
	t := treeRead{r: r, o: o, seen: map[string]bool{root: true}}
	top, err := t.root(ctx, root)
	if err != nil {
		return nil, err
	}
	level, depth := []*Node{top}, 0
	if o.Children != nil {
		level, depth = t.seed(top), 1
	}
	for ; len(level) > 0; depth++ {
		var next []*Node
		for i, batch := range chunks(level, treeParents) {
			kids, err := t.list(ctx, batch, i == 0 && depth == 1 && o.Children != nil)
			if err != nil {
				t.fill(ctx)
				return top, fmt.Errorf("tree of %s: %w", root, err)
			}
			next = append(next, t.place(batch, kids, depth)...)
		}
		level = next
	}
	t.fill(ctx)
	return top, nil
}

// Bounds of Tree: the children read of one level's batch of parents, the
// parents one query names, the status queries in flight.
const (
	maxTreeChildren = 1000
	treeParents     = 100
	treeQueries     = 4
)

// treeRead is one reading of a tree: the agents read so far, in the order
// read (a parent before its children), those already placed.
type treeRead struct {
	r     *Client
	o     TreeOptions
	top   *Node
	all   []*Node
	seen  map[string]bool
	given map[string]*Node // the root's children the caller gave
	nodes int              // agents under the root
}

// root is the tree's root: described, unless the caller gave its children.
func (t *treeRead) root(ctx context.Context, id string) (*Node, error) {
	t.top = &Node{Summary: Summary{ID: id}}
	if t.o.Children != nil {
		return t.top, nil
	}
	desc, err := t.r.c.DescribeWorkflowExecution(ctx, id, "")
	switch {
	case isNotFound(err):
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	case err != nil:
		return nil, fmt.Errorf("tree of %s: %w", id, err)
	}
	self := []Summary{summary(desc.GetWorkflowExecutionInfo())}
	t.r.markStarting(ctx, self)
	t.top.Summary = self[0]
	t.all = append(t.all, t.top)
	return t.top, nil
}

// seed places the root's children the caller gave, within the bounds.
func (t *treeRead) seed(top *Node) []*Node {
	t.given = map[string]*Node{}
	for _, c := range t.o.Children {
		switch {
		case t.seen[c.ID]:
			continue
		case !t.room(1):
			top.More++
			continue
		}
		n := &Node{Summary: Summary{ID: c.ID, Parent: top.ID}, Mode: c.Mode, Settled: c.Settled, Usage: c.Usage}
		if c.Ended != "" {
			n.Status, n.ended = endedWord(c.Ended), true
		}
		t.add(top, n)
		t.given[c.ID] = n
	}
	return top.Children
}

// room reports whether an agent at depth may join the tree.
func (t *treeRead) room(depth int) bool {
	return (t.o.MaxDepth == 0 || depth <= t.o.MaxDepth) && (t.o.MaxNodes == 0 || t.nodes < t.o.MaxNodes)
}

func (t *treeRead) add(parent, n *Node) {
	t.seen[n.ID] = true
	t.nodes++
	parent.Children = append(parent.Children, n)
	t.all = append(t.all, n)
}

// list reads the children of batch, each agent's latest run once; with
// own, the root's too, whose rows complete the given children.
func (t *treeRead) list(ctx context.Context, batch []*Node, own bool) ([]Summary, error) {
	ids := make([]string, 0, len(batch)+1)
	for _, n := range batch {
		ids = append(ids, n.ID)
	}
	if own {
		ids = append(ids, t.top.ID)
	}
	rows, _, err := t.r.List(ctx, ListOptions{Parents: ids, Closed: true, Limit: maxTreeChildren})
	if err != nil {
		return nil, err
	}
	latest := map[string]bool{}
	out := rows[:0]
	for _, s := range rows { // newest run first
		if !latest[s.ID] {
			latest[s.ID] = true
			out = append(out, s)
		}
	}
	return out, nil
}

// place adds the rows under batch's agents, at depth+1, oldest first,
// within the bounds, and returns the agents added; a row of a child the
// caller gave completes it.
func (t *treeRead) place(batch []*Node, rows []Summary, depth int) []*Node {
	slices.SortStableFunc(rows, func(a, b Summary) int { return cmp.Compare(a.Started.UnixNano(), b.Started.UnixNano()) })
	byID := map[string]*Node{}
	for _, n := range batch {
		byID[n.ID] = n
	}
	var added []*Node
	for _, s := range rows {
		if s.Parent == t.top.ID && t.given != nil {
			if n := t.given[s.ID]; n != nil {
				n.visible(s)
			}
			continue
		}
		parent := byID[s.Parent]
		switch {
		case parent == nil || t.seen[s.ID]:
		case !t.room(depth + 1):
			parent.More++
		default:
			n := &Node{Summary: s}
			t.add(parent, n)
			added = append(added, n)
		}
	}
	return added
}

// visible completes a child the caller gave with its row in visibility;
// how the log says it ended stands, as visibility may lag.
func (n *Node) visible(s Summary) {
	status := n.Status
	n.Summary = s
	if n.ended {
		n.Status = status
	}
}

// chunks cuts nodes into slices of at most size.
func chunks(nodes []*Node, size int) [][]*Node {
	return slices.Collect(slices.Chunk(nodes, size))
}
