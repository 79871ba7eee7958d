package console

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// PageSize is the number of agents a list page shows.
const PageSize = 25

// Row is one agent in the list, read from visibility alone.
type Row struct {
	ID, RunID string
	// Status is running or idle, or how a closed agent ended (disposed,
	// failed, terminated, ...: signals.Ended).
	Status    string
	Model     string
	Parent    string
	Turn      int64
	Started   time.Time
	Closed    time.Time
	Waiting   string    // approval, answer or wait
	WaitUntil time.Time // when its earliest wait ends
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
		err = s.page(r.Context(), q, &v)
	}
	if err != nil {
		v.Error = err.Error()
		status, _ := classify(err)
		s.render(w, r, status, "list", v)
		return
	}
	s.render(w, r, http.StatusOK, "list", v)
}

// page lists one page of agents for query, at f.Page.
func (s *Server) page(ctx context.Context, query string, v *listView) error {
	token, err := base64.RawURLEncoding.DecodeString(v.Filter.Page)
	if err != nil {
		return fmt.Errorf("%w: page token", errBadInput)
	}
	resp, err := s.o.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Query: query, PageSize: PageSize, NextPageToken: token,
	})
	if err != nil {
		return fmt.Errorf("list agents: %w", err)
	}
	for _, ex := range resp.GetExecutions() {
		v.Rows = append(v.Rows, row(ex))
	}
	if next := resp.GetNextPageToken(); len(next) > 0 {
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
		resp, err := s.o.Client.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Query: base + " AND " + c.cond})
		if err != nil {
			return nil, fmt.Errorf("count %s agents: %w", c.Value, err)
		}
		out = append(out, Count{StatusChoice: c, N: resp.GetCount(), URL: f.With(c.Value), Selected: f.Status == c.Value})
	}
	return out, nil
}

// row reads a list row from visibility. Search attributes are never
// encrypted, so the default converter decodes them.
func row(ex *workflowpb.WorkflowExecutionInfo) Row {
	attrs := ex.GetSearchAttributes().GetIndexedFields()
	r := Row{ID: ex.GetExecution().GetWorkflowId(), RunID: ex.GetExecution().GetRunId(),
		Status: attr[string](attrs, signals.AttrStatus), Model: attr[string](attrs, signals.AttrModel),
		Parent: attr[string](attrs, signals.AttrParent), Turn: attr[int64](attrs, signals.AttrTurn),
		Started: ex.GetStartTime().AsTime(), Waiting: attr[string](attrs, signals.AttrWaiting),
		WaitUntil: attr[time.Time](attrs, signals.AttrWaitUntil)}
	if ex.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		r.Status, r.Closed = string(projection.EndedAs(ex.GetStatus())), ex.GetCloseTime().AsTime()
	}
	return r
}

func attr[T any](fields map[string]*commonpb.Payload, name string) T {
	var v T
	if p, ok := fields[name]; ok {
		_ = converter.GetDefaultDataConverter().FromPayload(p, &v)
	}
	return v
}

// WaitingChoices are the waiting filter's values for the form.
func (listView) WaitingChoices() []string { return WaitingChoices }
