package console

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/console/transcript"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// WindowBlocks is the number of latest blocks an agent page shows before
// "show all".
const WindowBlocks = 40

// statusView is the status panel, on the page and in live updates.
type statusView struct {
	ID          string
	Live        bool // the panel is kept current by the live feed
	Closed      bool
	Status      *signals.StatusView
	Err         string
	Total       transcript.Usage
	Selection   *eventlog.Selection
	FromHistory bool
	// Parent is the agent's parent; Tree its descendants, within the
	// bounds (MaxTreeDepth, MaxTreeNodes), nil when it has no children.
	Parent string
	Tree   *treeNode
	// Forms says the panel carries the decision forms; CSRF is the
	// session's token, "" in the live feed's shared panel, where the
	// page's script fills in its own (and drops the forms for a reader).
	Forms bool
	CSRF  string
	// Progress is what the agent's running tool calls last said of their
	// progress; none when it could not be read.
	Progress []agent.CallProgress
	// Starting says no worker has run the open agent yet: its status
	// query does not answer and its log is empty (agent.StatusStarting).
	Starting bool
	// Ending says how and why a closed agent ended; Last are its last log
	// events, so a failed agent shows what it did before it failed.
	Ending *ending
	Last   []lastEvent
}

type agentView struct {
	ID       string
	Closed   bool
	Options  *signals.AgentOptions
	Model    string // the provider/model the agent runs on, effort included
	Blocks   []*transcript.Block
	Hidden   int    // earlier blocks left out
	AllURL   string // shows them
	Next     int64  // the log position the page reached
	Status   statusView
	Done     string // the action just done, from the redirect
	Temporal string // the agent's page in the Temporal Web UI
	Scrub    scrubber
	// Lineage is where the agent came from and its forks.
	Lineage lineage
	// ForkForm says the scrubbed page offers the operator a fork from its
	// position.
	ForkForm bool
}

func (v agentView) PageTitle() string { return v.ID }

func (s *Server) agentPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	snap, err := s.read(r.Context(), id)
	if err != nil {
		s.fail(w, r, 0, err)
		return
	}
	tr, err := transcript.Build(snap.Log, snap.prices())
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	at, scrubbed, err := parseAt(r.URL.Query().Get("at"), tr.First, len(snap.Log))
	if err != nil {
		s.fail(w, r, 0, err)
		return
	}
	v := agentView{ID: id, Closed: snap.Closed, Options: snap.Options, Model: modelInForce(tr, snap.Options),
		Blocks: tr.Blocks, Next: tr.Next,
		Done: doneText(r.URL.Query().Get("done")),
		Status: statusView{ID: id, Live: !snap.Closed, Closed: snap.Closed, Status: snap.Status, Total: tr.Total,
			Selection: tr.Selection, FromHistory: snap.FromHistory, Progress: snap.Progress}}
	if snap.Options != nil {
		v.Status.Parent = snap.Options.Parent
	}
	v.Status.Tree = s.tree(r.Context(), id, tr.Children)
	if snap.Closed {
		v.Status.Ending, v.Status.Last = endingOf(snap.Ending, snap.Log), lastEvents(snap.Log)
	}
	if sess := s.session(r); sess.Operator && !snap.Closed {
		v.Status.Forms, v.Status.CSRF = true, sess.CSRF
	}
	if snap.StatusErr != nil {
		v.Status.Err = snap.StatusErr.Error()
		v.Status.Starting = !snap.Closed && len(snap.Log) == 0
	}
	v.Scrub = scrubber{At: tr.Next - 1, First: tr.First, Last: tr.Next - 1}
	v.Lineage = s.lineage(r.Context(), snap, tr)
	if scrubbed {
		base, err := s.foldBase(r.Context(), id, tr)
		if err == nil {
			err = scrub(&v, snap, base, at)
		}
		if err != nil {
			s.fail(w, r, http.StatusInternalServerError, err)
			return
		}
		v.ForkForm = s.session(r).Operator
	}
	if r.URL.Query().Get("all") == "" && len(v.Blocks) > WindowBlocks {
		v.Hidden = len(v.Blocks) - WindowBlocks
		v.Blocks = v.Blocks[v.Hidden:]
		v.AllURL = "/agents/" + url.PathEscape(id) + "?all=1"
		if scrubbed {
			v.AllURL += "&at=" + strconv.FormatInt(at, 10)
		}
	}
	if s.o.TemporalUI != "" {
		v.Temporal = s.o.TemporalUI + "/namespaces/" + url.PathEscape(s.o.Namespace) + "/workflows/" + url.PathEscape(id)
	}
	s.render(w, r, http.StatusOK, "agent", v)
}

// modelInForce labels the model the agent runs on: the last accepted
// switch or the worker's defaults resolved, else what its options asked.
func modelInForce(tr *transcript.Transcript, o *signals.AgentOptions) string {
	sel := tr.InForce
	if sel == nil && o != nil {
		sel = &eventlog.Selection{Provider: o.Provider, Model: o.Model, Effort: o.Effort}
	}
	if sel == nil {
		return ""
	}
	label := agent.ModelShown(signals.ModelLabel(*sel))
	if sel.Effort != "" {
		label += " · effort " + sel.Effort
	}
	return label
}
