package console

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/console/transcript"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Bounds of the tree an agent's page shows: agents deeper or beyond the
// count are counted on their parent ("… N more"), never listed.
const (
	MaxTreeDepth = 5
	MaxTreeNodes = 30
	// treeQueries bounds the status queries a tree sends at once.
	treeQueries = 4
)

// treeNode is an agent in another's tree. The first level comes from the
// parent's log (which children there are, their mode, reports and end);
// deeper levels and every node's status, turn and model come from
// visibility, which may lag a moment; a node that runs answers its status
// query, which gives its status, turn and usage (its children included)
// as they are now.
type treeNode struct {
	ID      string
	Mode    eventlog.ChildMode // how its parent spawned it, when known
	Status  string             // running, idle, or how it ended (signals.Ended); "" until visibility lists it
	Turn    int64
	Model   string
	Settled int // turns it reported to its parent
	Usage   transcript.Usage
	// Open says the node may still change: it has not closed.
	Open     bool
	Children []*treeNode
	More     int // its children left out by the bounds
}

// Chip is the CSS class of the node's status: its first word.
func (n *treeNode) Chip() string {
	if n.Status == "" {
		return "unknown"
	}
	if i := strings.IndexAny(n.Status, ": "); i > 0 {
		return n.Status[:i]
	}
	return n.Status
}

// Facts are the node's mode, turn, reports and model, for the page.
func (n *treeNode) Facts() string {
	var out []string
	if n.Mode != "" {
		out = append(out, string(n.Mode))
	}
	if n.Turn > 0 {
		out = append(out, "turn "+strconv.FormatInt(n.Turn, 10))
	}
	if n.Settled > 0 {
		out = append(out, strconv.Itoa(n.Settled)+" reported")
	}
	if n.Model != "" {
		out = append(out, n.Model)
	}
	return strings.Join(out, " · ")
}

// open reports whether any node of the tree may still change.
func (n *treeNode) open() bool {
	if n == nil {
		return false
	}
	for _, c := range n.Children {
		if c.Open || c.open() {
			return true
		}
	}
	return false
}

// tree builds the tree under agent id, whose log names children, within
// the bounds; nil when it has none. Each level is one visibility query and
// each running node one status query, all within QueryTimeout; a failure
// leaves facts out, never a child of the log.
func (s *Server) tree(ctx context.Context, id string, children []*transcript.Child) *treeNode {
	if len(children) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.o.QueryTimeout)
	defer cancel()
	root := &treeNode{ID: id}
	nodes := 0
	for _, c := range children {
		if nodes == MaxTreeNodes {
			root.More++
			continue
		}
		nodes++
		root.Children = append(root.Children, &treeNode{ID: c.ID, Mode: c.Mode, Settled: c.Settled, Usage: c.Usage,
			Status: endedWord(c.Ended), Open: c.Ended == ""})
	}
	level := root.Children
	for depth := 1; depth <= MaxTreeDepth && len(level) > 0; depth++ {
		rows := s.childRows(ctx, level, depth == 1, id)
		var next []*treeNode
		for _, n := range level {
			if r, ok := rows.self[n.ID]; ok {
				n.visible(r)
			}
			for _, r := range rows.kids[n.ID] {
				if depth == MaxTreeDepth || nodes == MaxTreeNodes {
					n.More++
					continue
				}
				nodes++
				c := &treeNode{ID: r.ID}
				c.visible(r)
				n.Children = append(n.Children, c)
				next = append(next, c)
			}
		}
		level = next
	}
	s.liveStatus(ctx, root)
	return root
}

// visible fills in what visibility says of the node.
func (n *treeNode) visible(r Row) {
	n.Turn, n.Model = r.Turn, r.Model
	if n.Status != "" && !n.Open { // the parent's log says how it ended
		return
	}
	n.Status, n.Open = r.Status, r.Closed.IsZero()
}

// endedWord is how a child ended as its parent's log recorded it
// (Temporal's word: completed, timed_out), in the views' vocabulary.
func endedWord(recorded string) string {
	if w := signals.EndedFrom(recorded); w != "" {
		return string(w)
	}
	return recorded
}

// levelRows are a level's rows in visibility: its nodes' own (the first
// level's, from their parent's listing) and their children's, by parent.
type levelRows struct {
	self map[string]Row
	kids map[string][]Row
}

// childRows lists the children of level's nodes in one query (agent's
// List, which quotes every ID); for the first level it lists root's
// children too, for the nodes' own rows.
func (s *Server) childRows(ctx context.Context, level []*treeNode, first bool, root string) levelRows {
	parents := make([]string, 0, len(level)+1)
	for _, n := range level {
		parents = append(parents, n.ID)
	}
	if first {
		parents = append(parents, root)
	}
	agents, _, err := s.agents.List(ctx, agent.ListOptions{Parents: parents, Closed: true, Limit: signals.MaxStatusItems})
	if err != nil {
		s.o.Logger.Info("Console cannot list children", "agent_id", root, "error", err)
	}
	out := levelRows{self: map[string]Row{}, kids: map[string][]Row{}}
	seen := map[string]bool{}
	for _, a := range agents {
		r := rowOf(a)
		if seen[r.ID] { // newest run first
			continue
		}
		seen[r.ID] = true
		if first && r.Parent == root {
			out.self[r.ID] = r
		} else {
			out.kids[r.Parent] = append(out.kids[r.Parent], r)
		}
	}
	for _, rows := range out.kids {
		slices.SortStableFunc(rows, func(a, b Row) int { return cmp.Compare(a.Started.UnixNano(), b.Started.UnixNano()) })
	}
	return out
}

// liveStatus asks each open node of the tree for its status, treeQueries
// at once: its status and turn as they are now, what it has spent, and
// its children's modes and reports. A closed node whose spending no
// parent's report gave is read from its result (signals.AgentResult).
func (s *Server) liveStatus(ctx context.Context, root *treeNode) {
	var open, closed []*treeNode
	var walk func(*treeNode)
	walk = func(n *treeNode) {
		for _, c := range n.Children {
			if c.Open {
				open = append(open, c)
			} else if c.Usage.Tokens() == 0 {
				closed = append(closed, c)
			}
			walk(c)
		}
	}
	walk(root)
	views := make([]*signals.StatusView, len(open))
	results := make([]*signals.AgentResult, len(closed))
	var wg sync.WaitGroup
	sem := make(chan struct{}, treeQueries)
	for i, n := range open {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			v, err := s.o.Client.QueryWorkflow(ctx, n.ID, "", signals.StatusQuery.Name, struct{}{})
			var st signals.StatusView
			if err == nil && v.Get(&st) == nil {
				views[i] = &st
			}
		})
	}
	for i, n := range closed {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			var res signals.AgentResult
			if s.o.Client.GetWorkflow(ctx, n.ID, "").Get(ctx, &res) == nil {
				results[i] = &res
			}
		})
	}
	wg.Wait()
	for i, n := range open {
		if st := views[i]; st != nil {
			n.live(st)
		}
	}
	for i, n := range closed {
		if res := results[i]; res != nil {
			n.Usage = usageOf(res.Usage)
		}
	}
}

func usageOf(u eventlog.Usage) transcript.Usage {
	return transcript.Usage{Input: u.InputTokens, Output: u.OutputTokens, Cached: u.CachedTokens}
}

// live fills in what the node's status query says.
func (n *treeNode) live(st *signals.StatusView) {
	n.Status, n.Turn = agent.OpenStatus(*st), int64(st.Turn)
	if u := st.Usage; u != (eventlog.Usage{}) {
		n.Usage = usageOf(u)
	}
	for _, cv := range st.Children {
		for _, c := range n.Children {
			if c.ID == cv.ID {
				c.Mode, c.Settled = cv.Mode, cv.Settled
				if c.Usage.Tokens() == 0 {
					c.Usage = usageOf(cv.Spent)
				}
			}
		}
	}
}
