package console

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"time"

	"github.com/tetherdev/tether/agent"
)

// PageSize is the number of agents a list page shows.
const PageSize = 25

// Row is one agent in the list, read from visibility alone.
type Row struct {
	ID, RunID string
	// Status is running, idle, or starting while no worker has run it
	// (agent.Summary), or how a closed agent ended (disposed, failed,
	// terminated, ...: signals.Ended).
	Status string
	// Model is provider/model as views show it (agent.ModelShown): the
	// worker's default reads "worker default" until resolved.
	Model     string
	Parent    string
	Turn      int64
	Started   time.Time
	Closed    time.Time
	Waiting   string    // approval, answer or wait
	WaitUntil time.Time // when its earliest wait ends
	// Build is the worker build that drives its current run (agent.Summary's
	// Build, under its deployment when versioned); "" before any did.
	Build string
}

// Count is the number of agents with one status under the other filters.
type Count struct {
	StatusChoice
	N        int64
	URL      string
	Selected bool
}

type listView struct {
	Filter Filter
	Query  string
	Rows   []Row
	Counts []Count
	Next   string // the next page's URL, if any
	First  string // the first page's URL when not on it
	Error  string
}

func (listView) PageTitle() string { return "Agents" }

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	f := filterFrom(r.URL.Query())
	v := listView{Filter: f}
	q, err := f.Query()
	if err != nil {
		v.Error = err.Error()
		s.render(w, r, http.StatusBadRequest, "list", v)
		return
	}
	v.Query = q
	if v.Counts, err = s.counts(r.Context(), f); err == nil {
		err = s.page(r.Context(), &v)
	}
	if err != nil {
		v.Error = err.Error()
		status, _ := classify(err)
		s.render(w, r, status, "list", v)
		return
	}
	s.render(w, r, http.StatusOK, "list", v)
}

// page lists one page of agents (agent's ListPage), at f.Page.
func (s *Server) page(ctx context.Context, v *listView) error {
	token, err := base64.RawURLEncoding.DecodeString(v.Filter.Page)
	if err != nil {
		return fmt.Errorf("%w: page token", errBadInput)
	}
	o, err := v.Filter.Options()
	if err != nil {
		return err
	}
	o.WithBuild = true // one describe an agent of the page
	agents, next, err := s.agents.ListPage(ctx, o, PageSize, token)
	if err != nil {
		return err
	}
	for _, a := range agents {
		v.Rows = append(v.Rows, rowOf(a))
	}
	if len(next) > 0 {
		v.Next = "/agents?" + v.Filter.Values(base64.RawURLEncoding.EncodeToString(next)).Encode()
	}
	if v.Filter.Page != "" {
		v.First = "/agents?" + v.Filter.Values("").Encode()
	}
	return nil
}

// counts counts the agents of each status under f's other conditions.
func (s *Server) counts(ctx context.Context, f Filter) ([]Count, error) {
	base, err := f.base()
	if err != nil {
		return nil, err
	}
	out := make([]Count, 0, len(StatusChoices))
	for _, c := range StatusChoices {
		o, err := withStatus(base, c.Value)
		if err != nil {
			return nil, err
		}
		n, err := s.agents.Count(ctx, o)
		if err != nil {
			return nil, fmt.Errorf("count %s agents: %w", c.Value, err)
		}
		out = append(out, Count{StatusChoice: c, N: n, URL: f.With(c.Value), Selected: f.Status == c.Value})
	}
	return out, nil
}

// rowOf is a list row from agent's summary: its status in the views' words
// (agent.Summary), its model as views show it (agent.ModelShown).
func rowOf(a agent.Summary) Row {
	return Row{ID: a.ID, RunID: a.RunID, Status: a.Status, Model: agent.ModelShown(a.Model), Parent: a.Parent,
		Turn: int64(a.Turn), Started: a.Started, Closed: a.Closed, Waiting: a.Waiting, WaitUntil: a.WaitUntil,
		Build: buildOf(a)}
}

// buildOf is a summary's build as the list shows it: deployment:build for a
// versioned run, as Temporal writes a version.
func buildOf(a agent.Summary) string {
	if a.Deployment != "" && a.Build != "" {
		return a.Deployment + ":" + a.Build
	}
	return a.Build
}

// WaitingChoices are the waiting filter's values for the form.
func (listView) WaitingChoices() []string { return WaitingChoices }
