package console

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
)

// Filter is the agent list's server-side filter, read from the URL. Every
// field becomes a condition of agent's list query (agent.ListOptions) over
// Tether's search attributes; none is applied in the console.
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

// StatusChoice is one value of the list's status filter: its agents are
// open with that status (running, idle), or have ended (closed).
type StatusChoice struct {
	Value, Label string
}

// StatusChoices are the status filter's values, in display order; the list
// shows a count for each.
var StatusChoices = []StatusChoice{{"running", "running"}, {"idle", "idle"}, {"closed", "closed"}}

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

// base is agent's list options for every filter but status: the list's
// counts vary status over it. Agent's query quotes every value.
func (f Filter) base() (agent.ListOptions, error) {
	o := agent.ListOptions{Model: f.Model, Parent: f.Parent, Prefix: f.Prefix, Closed: true}
	for _, v := range []string{f.Model, f.Parent, f.Prefix} {
		if err := literal(v); err != nil {
			return o, err
		}
	}
	if f.Parent == "-" {
		o.Parent, o.Roots = "", true
	}
	if f.Turn != "" {
		m := turnExpr.FindStringSubmatch(f.Turn)
		if m == nil {
			return o, fmt.Errorf("%w: turn %q: want a number, optionally after =, <, <=, > or >=", errBadInput, f.Turn)
		}
		turn, _ := strconv.Atoi(m[2])
		o.Turn, o.TurnOp = &turn, m[1]
	}
	switch {
	case f.Waiting == "" || f.Waiting == agent.WaitingAny || slices.Contains(WaitingChoices, f.Waiting):
		o.Waiting = f.Waiting
	default:
		return o, fmt.Errorf("%w: waiting %q: want approval, answer, wait or any", errBadInput, f.Waiting)
	}
	if f.Until != "" {
		t, err := untilTime(f.Until)
		if err != nil {
			return o, err
		}
		o.WaitUntil = t
	}
	return o, nil
}

// withStatus is o narrowed to one StatusChoice value.
func withStatus(o agent.ListOptions, status string) (agent.ListOptions, error) {
	switch status {
	case "":
	case "running", "idle":
		o.Status, o.Closed = eventlog.Status(status), false
	case "closed":
		o.Ended = true
	default:
		return o, fmt.Errorf("%w: status %q", errBadInput, status)
	}
	return o, nil
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

// Options are agent's list options for f.
func (f Filter) Options() (agent.ListOptions, error) {
	o, err := f.base()
	if err != nil {
		return o, err
	}
	return withStatus(o, f.Status)
}

// Query is the visibility query of f, as agent's List asks it.
func (f Filter) Query() (string, error) {
	o, err := f.Options()
	if err != nil {
		return "", err
	}
	q, err := o.Query()
	if err != nil {
		return "", fmt.Errorf("%w: %w", errBadInput, err)
	}
	return q, nil
}

// literal refuses a filter value too long or with a line break for a
// visibility string literal (agent's query escapes the rest).
func literal(v string) error {
	if len(v) > 256 || strings.ContainsAny(v, "\x00\n\r") {
		return fmt.Errorf("%w: %q: at most 256 characters, no line break", errBadInput, v)
	}
	return nil
}
