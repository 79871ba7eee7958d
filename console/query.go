package console

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tetherdev/tether/signals"
)

// Filter is the agent list's server-side filter, read from the URL. Every
// field becomes a condition of a visibility query over Tether's search
// attributes; none is applied in the console.
type Filter struct {
	Status string // a StatusChoice value, or "" for all
	Model  string // TetherModel, exactly (provider/model)
	Parent string // TetherParent, exactly; "-" means agents without one
	Turn   string // TetherTurn: "3", ">=3", "<10", ...
	Prefix string // agent ID prefix
	// Waiting is TetherWaiting: approval, answer or wait; "any" for all
	// three.
	Waiting string
	// Until keeps agents whose earliest wait ends by then (TetherWaitUntil),
	// RFC 3339 or a browser's local date-time, read as UTC.
	Until string
	Page  string // visibility page token, base64url
}

// WaitingChoices are the values of the waiting filter.
var WaitingChoices = []string{"approval", "answer", "wait"}

// StatusChoice is one value of the list's status filter: a condition on
// the workflow's execution status and Tether's status attribute. Waiting
// states (approvals, answers, durable waits) join as choices here when
// their search attribute exists.
type StatusChoice struct {
	Value, Label string
	cond         string
}

// StatusChoices are the status filter's values, in display order; the list
// shows a count for each.
var StatusChoices = []StatusChoice{
	{"running", "running", "ExecutionStatus = 'Running' AND " + signals.AttrStatus + " = 'running'"},
	{"idle", "idle", "ExecutionStatus = 'Running' AND " + signals.AttrStatus + " = 'idle'"},
	{"closed", "closed", "ExecutionStatus != 'Running'"},
}

func filterFrom(q url.Values) Filter {
	get := func(k string) string { return strings.TrimSpace(q.Get(k)) }
	return Filter{Status: get("status"), Model: get("model"), Parent: get("parent"), Turn: get("turn"),
		Prefix: get("prefix"), Waiting: get("waiting"), Until: get("until"), Page: q.Get("page")}
}

// Values is f as URL parameters; page as given.
func (f Filter) Values(page string) url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"status": f.Status, "model": f.Model, "parent": f.Parent,
		"turn": f.Turn, "prefix": f.Prefix, "waiting": f.Waiting, "until": f.Until, "page": page} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v
}

// With returns f's URL with the status filter set to status, first page.
func (f Filter) With(status string) string {
	f.Status = status
	return "/agents?" + f.Values("").Encode()
}

var turnExpr = regexp.MustCompile(`^(>=|<=|>|<|=)?\s*(\d{1,9})$`)

// base is the query of every condition but status: the list's counts vary
// status over it.
func (f Filter) base() (string, error) {
	conds := []string{"WorkflowType = " + quote(signals.AgentWorkflow)}
	for _, kw := range []struct{ attr, v string }{{signals.AttrModel, f.Model}, {signals.AttrParent, f.Parent}} {
		switch {
		case kw.v == "":
		case kw.attr == signals.AttrParent && kw.v == "-":
			conds = append(conds, kw.attr+" IS NULL")
		default:
			if err := literal(kw.v); err != nil {
				return "", err
			}
			conds = append(conds, kw.attr+" = "+quote(kw.v))
		}
	}
	if f.Turn != "" {
		m := turnExpr.FindStringSubmatch(f.Turn)
		if m == nil {
			return "", fmt.Errorf("%w: turn %q: want a number, optionally after =, <, <=, > or >=", errBadInput, f.Turn)
		}
		op := m[1]
		if op == "" {
			op = "="
		}
		conds = append(conds, signals.AttrTurn+" "+op+" "+m[2])
	}
	if f.Prefix != "" {
		if err := literal(f.Prefix); err != nil {
			return "", err
		}
		conds = append(conds, "WorkflowId STARTS_WITH "+quote(f.Prefix))
	}
	waits, err := f.waits()
	if err != nil {
		return "", err
	}
	return strings.Join(append(conds, waits...), " AND "), nil
}

// waits are the conditions of the waiting and until filters.
func (f Filter) waits() ([]string, error) {
	var conds []string
	switch {
	case f.Waiting == "":
	case f.Waiting == "any":
		conds = append(conds, signals.AttrWaiting+" IS NOT NULL")
	case slices.Contains(WaitingChoices, f.Waiting):
		conds = append(conds, signals.AttrWaiting+" = "+quote(f.Waiting))
	default:
		return nil, fmt.Errorf("%w: waiting %q: want approval, answer, wait or any", errBadInput, f.Waiting)
	}
	if f.Until != "" {
		t, err := untilTime(f.Until)
		if err != nil {
			return nil, err
		}
		conds = append(conds, signals.AttrWaitUntil+" <= "+quote(t.UTC().Format(time.RFC3339)))
	}
	return conds, nil
}

// untilTime reads the until filter: RFC 3339, or a date-time input's value
// (no zone: UTC).
func untilTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%w: until %q: want a date-time such as 2026-01-02T15:04 (UTC) or RFC 3339", errBadInput, s)
}

// Query is the visibility query of f.
func (f Filter) Query() (string, error) {
	q, err := f.base()
	if err != nil || f.Status == "" {
		return q, err
	}
	for _, c := range StatusChoices {
		if c.Value == f.Status {
			return q + " AND " + c.cond, nil
		}
	}
	return "", fmt.Errorf("%w: status %q", errBadInput, f.Status)
}

// literal refuses what a visibility string literal cannot hold safely.
func literal(v string) error {
	if len(v) > 256 || strings.ContainsAny(v, "\\\x00\n\r") {
		return fmt.Errorf("%w: %q: at most 256 characters, no backslash or line break", errBadInput, v)
	}
	return nil
}

func quote(v string) string { return "'" + strings.ReplaceAll(v, "'", `\'`) + "'" }
