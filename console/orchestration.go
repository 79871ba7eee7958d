package console

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"go.temporal.io/api/workflowservice/v1"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/console/transcript"
	"github.com/tetherdev/tether/signals"
)

// childRow is a child agent in the agent's tree: what the parent's log
// says of it (mode, reports, usage, end) and what visibility says of its
// status and turn, which may lag a moment behind.
type childRow struct {
	transcript.Child
	Status string // running, idle, or how it closed; "" until visibility lists it
	Turn   int64
}

// Chip is the CSS class of the child's status: its first word.
func (c childRow) Chip() string {
	if c.Status == "" {
		return "unknown"
	}
	if i := strings.IndexAny(c.Status, ": "); i > 0 {
		return c.Status[:i]
	}
	return c.Status
}

// tree joins the children of the parent's log with their rows in
// visibility. A visibility failure leaves status and turn out, never the
// child: the log is the record of which children there are.
func (s *Server) tree(ctx context.Context, id string, tr *transcript.Transcript) []childRow {
	if tr == nil || len(tr.Children) == 0 {
		return nil
	}
	rows := map[string]Row{}
	resp, err := s.o.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Query:    "WorkflowType = " + quote(signals.AgentWorkflow) + " AND " + signals.AttrParent + " = " + quote(id),
		PageSize: signals.MaxStatusItems,
	})
	if err != nil {
		s.o.Logger.Info("Console cannot list children", "agent_id", id, "error", err)
	}
	for _, ex := range resp.GetExecutions() {
		r := row(ex)
		if _, seen := rows[r.ID]; !seen { // newest run first
			rows[r.ID] = r
		}
	}
	out := make([]childRow, 0, len(tr.Children))
	for _, c := range tr.Children {
		cr := childRow{Child: *c}
		if r, ok := rows[c.ID]; ok {
			cr.Status, cr.Turn = r.Status, r.Turn
			if r.Execution != "" {
				cr.Status = r.Execution
			}
		}
		if c.Ended != "" {
			cr.Status = c.Ended
		}
		out = append(out, cr)
	}
	return out
}

// decider names who decided in the agent's log.
const decider = "console"

// decisions are the decision actions, by path.
var decisions = map[string]func(*agent.Handle, context.Context, string, string, string) (signals.Decided, error){
	"approve": (*agent.Handle).Approve,
	"deny":    (*agent.Handle).Deny,
	"answer":  (*agent.Handle).Answer,
}

// decide approves or denies a pending tool call, or answers a question,
// through the client's validated updates: an unknown or already decided
// call comes back as signals.ErrNoSuchDecision.
func (s *Server) decide(what string) http.HandlerFunc {
	send := decisions[what]
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), actionTimeout)
		defer cancel()
		call := strings.TrimSpace(r.PostFormValue("call_id"))
		text := r.PostFormValue("text")
		if err := needsText(what, text); err != nil {
			s.fail(w, r, 0, err)
			return
		}
		h, err := s.attach(ctx, r)
		if err != nil {
			s.fail(w, r, 0, err)
			return
		}
		d, err := send(h, ctx, call, decider, text)
		if err != nil {
			s.fail(w, r, 0, err)
			return
		}
		s.done(w, r, h.ID, what, map[string]any{"call_id": d.CallID, "seq": d.Seq})
	}
}

// needsText refuses a denial without a reason and an empty answer: the
// model reads either as the call's result.
func needsText(what, text string) error {
	if strings.TrimSpace(text) != "" || what == "approve" {
		return nil
	}
	if what == "deny" {
		return fmt.Errorf("%w: a denial needs a reason", errBadInput)
	}
	return fmt.Errorf("%w: the answer", signals.ErrEmptyMessage)
}
