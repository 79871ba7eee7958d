package console

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/console/transcript"
	"github.com/tetherdev/tether/eventlog"
)

// maxDiffRows bounds the messages a diff page shows of each side after
// the point the conversations part; maxDiffText each message's text.
const (
	maxDiffRows = 200
	maxDiffText = 4000
	diffContext = 2 // shared messages shown before the point they part
)

// diffView is two agents' conversations side by side from the point they
// part (agent.Diverge), as `starter diff` prints them.
type diffView struct {
	A, B   diffSide
	Common int
	Shared []diffMessage // the last shared messages, for context
	Rows   []diffRow
	More   int // rows left out
	Same   bool
}

func (diffView) PageTitle() string { return "Compare" }

type diffSide struct {
	ID, URL string
	Fork    *eventlog.SessionForked
	Len     int
}

type diffRow struct {
	Index int
	A, B  *diffMessage
}

type diffMessage struct {
	Role, Of, Text string
	Calls          []string
	Clipped        bool
}

// diff shows the conversations of agents a and b (query parameters) from
// the first message where they differ. Either agent may be closed: both
// are read from history (agent.Handle.Lineage).
func (s *Server) diff(w http.ResponseWriter, r *http.Request) {
	ids := [2]string{r.URL.Query().Get("a"), r.URL.Query().Get("b")}
	for _, id := range ids {
		if id == "" {
			s.fail(w, r, http.StatusBadRequest, fmt.Errorf("%w: compare needs two agents: /diff?a=ID&b=ID", errBadInput))
			return
		}
		if !validID(id) {
			s.fail(w, r, http.StatusBadRequest, errBadID)
			return
		}
	}
	var sides [2]agent.Lineage
	var errs [2]error
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() { sides[i], errs[i] = s.lineageOf(r.Context(), id) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			s.fail(w, r, 0, err)
			return
		}
	}
	s.render(w, r, http.StatusOK, "diff", compare(ids, sides))
}

// lineageOf reads an agent's lineage, closed or not.
func (s *Server) lineageOf(ctx context.Context, id string) (agent.Lineage, error) {
	h, err := s.agents.Attach(ctx, id)
	if h == nil {
		return agent.Lineage{}, err
	}
	return h.Lineage(ctx)
}

// compare lays out the divergence of two lineages for the page.
func compare(ids [2]string, sides [2]agent.Lineage) diffView {
	d := agent.Diverge(sides[0].Conversation, sides[1].Conversation)
	v := diffView{Common: d.Common, Same: d.Same()}
	for i, side := range []*diffSide{&v.A, &v.B} {
		*side = diffSide{ID: ids[i], URL: "/agents/" + url.PathEscape(ids[i]), Fork: sides[i].Fork, Len: len(sides[i].Conversation)}
	}
	for _, m := range sides[0].Conversation[max(0, d.Common-diffContext):d.Common] {
		v.Shared = append(v.Shared, shown(m))
	}
	n := max(len(d.A), len(d.B))
	if n > maxDiffRows {
		v.More, n = n-maxDiffRows, maxDiffRows
	}
	for i := range n {
		row := diffRow{Index: d.Common + i}
		if i < len(d.A) {
			m := shown(d.A[i])
			row.A = &m
		}
		if i < len(d.B) {
			m := shown(d.B[i])
			row.B = &m
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// shown is a message as the diff page shows it: its text bounded, each
// tool call as name(arguments).
func shown(m eventlog.Message) diffMessage {
	out := diffMessage{Role: string(m.Role), Of: m.ToolCallID, Text: m.Content}
	if len(out.Text) > maxDiffText {
		out.Text, out.Clipped = transcript.Clip(out.Text, maxDiffText), true
	}
	for _, c := range m.ToolCalls {
		out.Calls = append(out.Calls, transcript.Clip(c.Name+"("+string(c.Arguments)+")", maxDiffText))
	}
	return out
}
