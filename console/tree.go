package console

import (
	"context"
	"strconv"
	"strings"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/console/transcript"
	"github.com/tetherdev/tether/eventlog"
)

// Bounds of the tree an agent's page shows: agents deeper or beyond the
// count are counted on their parent ("… N more"), never listed.
const (
	MaxTreeDepth = 5
	MaxTreeNodes = 30
)

// treeNode is an agent in another's tree, as the page shows agent's Node.
// The first level comes from the parent's log (which children there are,
// their mode, reports and end); deeper levels and every node's status,
// turn and model come from visibility, which may lag a moment; a node that
// runs answers its status query, which gives its status, turn and usage
// (its children included) as they are now.
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

// tree reads the tree under agent id, whose log names children, within
// the bounds, by agent's TreeWith (one visibility query a level, one
// status query a running node), all within QueryTimeout; nil when it has
// no children. A failure leaves facts out, never a child of the log.
func (s *Server) tree(ctx context.Context, id string, children []*transcript.Child) *treeNode {
	if len(children) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.o.QueryTimeout)
	defer cancel()
	given := make([]agent.Child, len(children))
	logged := map[string]transcript.Usage{}
	for i, c := range children {
		given[i] = agent.Child{ID: c.ID, Mode: c.Mode, Settled: c.Settled, Ended: c.Ended,
			Usage: eventlog.Usage{InputTokens: c.Usage.Input, OutputTokens: c.Usage.Output, CachedTokens: c.Usage.Cached}}
		logged[c.ID] = c.Usage
	}
	root, err := s.agents.TreeWith(ctx, id, agent.TreeOptions{Children: given, MaxDepth: MaxTreeDepth, MaxNodes: MaxTreeNodes})
	if err != nil {
		s.o.Logger.Info("Console cannot read the tree", "agent_id", id, "error", err)
	}
	if root == nil {
		return nil
	}
	return viewOf(root, logged)
}

// viewOf is the page's view of n and its tree. A usage that is still what
// the log's reports said keeps the log's pricing.
func viewOf(n *agent.Node, logged map[string]transcript.Usage) *treeNode {
	v := &treeNode{ID: n.ID, Mode: n.Mode, Status: n.Status, Turn: int64(n.Turn), Model: agent.ModelShown(n.Model),
		Settled: n.Settled, Usage: usageOf(n.Usage), Open: n.Open(), More: n.More}
	if u, ok := logged[n.ID]; ok && u.Input == v.Usage.Input && u.Output == v.Usage.Output && u.Cached == v.Usage.Cached {
		v.Usage = u
	}
	for _, c := range n.Children {
		v.Children = append(v.Children, viewOf(c, logged))
	}
	return v
}

func usageOf(u eventlog.Usage) transcript.Usage {
	return transcript.Usage{Input: u.InputTokens, Output: u.OutputTokens, Cached: u.CachedTokens}
}
