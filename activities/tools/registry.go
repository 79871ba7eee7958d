package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tetherdev/tether/activities/llm"
)

// Mode says how a tool call may be scheduled against the other calls of the
// same model step.
type Mode string

const (
	// Parallel calls may run at the same time as other Parallel calls.
	Parallel Mode = "parallel"
	// Sequential calls run one at a time, in the order the model asked.
	Sequential Mode = "sequential"
	// Exclusive calls run alone: no other call of the step runs meanwhile.
	Exclusive Mode = "exclusive"
)

// Valid reports whether m is one of the three modes.
func (m Mode) Valid() bool { return m == Parallel || m == Sequential || m == Exclusive }

// Call is one tool invocation requested by the model.
//
// A call runs at least once, not exactly once: an attempt whose worker dies
// or loses the server mid-run runs again from the start on another worker,
// a local tool runs again when its workflow task is lost, and a tool's own
// retryable error runs it again. Once its result is recorded it never runs
// again. A tool with side effects (a payment, an email, a write elsewhere)
// therefore dedupes them on IdempotencyKey.
type Call struct {
	AgentID   string
	CallID    string
	Name      string
	Arguments json.RawMessage
	// IdempotencyKey is the same for every run of the call (attempts,
	// crashes, Continue-As-New) and unique to it within the agent's life:
	// "<agent>/<turn>/<step>/<call ID>". A tool with side effects records
	// it with the effect and skips an effect already recorded under it.
	IdempotencyKey string
}

// Result is what the model sees of a tool call.
type Result struct {
	Content string
	// IsError makes the model see Content as an error result.
	IsError bool
	// ConcludesTurn ends the agent's tool loop at this step.
	ConcludesTurn bool
}

// Func runs a tool, at least once per call (see Call). An error wrapped with
// ErrorResult reaches the model as an error result; any other error fails
// the attempt, which runs again until the call's attempts are used up, and
// then the model reads the error. ctx ends at the call's time limit.
type Func func(ctx context.Context, call Call) (Result, error)

// Tool is a named function the model can call.
type Tool struct {
	Name        string // ^[a-zA-Z0-9_-]{1,64}$
	Description string
	// Parameters is the JSON schema of the arguments; it must be an object
	// schema. Empty means no arguments.
	Parameters json.RawMessage
	Mode       Mode // empty means Parallel
	// Local marks a fast tool that needs nothing but the worker (the clock,
	// arithmetic, reading a small file): it runs as a Temporal local
	// activity, inside the agent's workflow task, which costs one history
	// event instead of three and a workflow task round trip. A local tool
	// runs again whenever that workflow task is lost (a worker crash, a
	// task that timed out), so it must be Idempotent.
	Local bool
	// Idempotent declares that running a call twice has the effect of
	// running it once: the tool only reads or computes, or it dedupes its
	// side effects on Call.IdempotencyKey. NewRegistry refuses a Local tool
	// that does not declare it.
	Idempotent bool
	Run        Func

	invalid error // why New could not make the tool; NewRegistry refuses it
}

// Registry holds validated tools. It is immutable and safe for concurrent use.
type Registry struct {
	tools          map[string]entry
	names          []string
	maxResultBytes int
}

type entry struct {
	tool   Tool
	schema *schema
}

// NewRegistry validates tools and indexes them by name.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{tools: make(map[string]entry, len(tools)), maxResultBytes: MaxResultBytes}
	for i, t := range tools {
		e, err := newEntry(t)
		if err != nil {
			return nil, fmt.Errorf("tool %d (%q): %w", i, t.Name, err)
		}
		if _, dup := r.tools[t.Name]; dup {
			return nil, fmt.Errorf("tool %d: duplicate name %q", i, t.Name)
		}
		r.tools[t.Name] = e
		r.names = append(r.names, t.Name)
	}
	slices.Sort(r.names)
	return r, nil
}

func newEntry(t Tool) (entry, error) {
	if err := validName(t.Name); err != nil {
		return entry{}, err
	}
	if t.invalid != nil {
		return entry{}, t.invalid
	}
	if strings.TrimSpace(t.Description) == "" {
		return entry{}, errors.New("empty description")
	}
	if t.Run == nil {
		return entry{}, errors.New("nil Run")
	}
	if t.Local && !t.Idempotent {
		return entry{}, ErrNotIdempotent
	}
	if t.Mode == "" {
		t.Mode = Parallel
	}
	if !t.Mode.Valid() {
		return entry{}, fmt.Errorf("invalid mode %q", t.Mode)
	}
	if len(bytes.TrimSpace(t.Parameters)) == 0 {
		t.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	s, err := compileSchema(t.Parameters)
	if err != nil {
		return entry{}, fmt.Errorf("parameters: %w", err)
	}
	if s.root.Type != "object" {
		return entry{}, fmt.Errorf(`parameters: %w: schema must have "type":"object"`, ErrInvalidSchema)
	}
	t.Parameters = bytes.Clone(t.Parameters)
	return entry{tool: t, schema: s}, nil
}

func validName(name string) error {
	if len(name) < 1 || len(name) > 64 {
		return fmt.Errorf("name must be 1-64 characters, got %d", len(name))
	}
	for _, c := range name {
		ok := c == '_' || c == '-' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
		if !ok {
			return fmt.Errorf("name has invalid character %q (allowed: a-z A-Z 0-9 _ -)", c)
		}
	}
	return nil
}

// Lookup returns the named tool, with defaults (Mode, Parameters) filled in.
func (r *Registry) Lookup(name string) (Tool, bool) {
	e, ok := r.tools[name]
	if !ok {
		return Tool{}, false
	}
	t := e.tool
	t.Parameters = bytes.Clone(t.Parameters)
	return t, true
}

// Names returns the sorted tool names.
func (r *Registry) Names() []string { return slices.Clone(r.names) }

// Local reports whether the named tool runs as a local activity.
func (r *Registry) Local(name string) bool {
	e, ok := r.tools[name]
	return ok && e.tool.Local
}

// Mode returns the named tool's mode, or Parallel for an unknown name.
func (r *Registry) Mode(name string) Mode {
	if e, ok := r.tools[name]; ok {
		return e.tool.Mode
	}
	return Parallel
}

// Specs describes the named tools to the model, in the order given.
func (r *Registry) Specs(names []string) ([]llm.ToolSpec, error) {
	specs := make([]llm.ToolSpec, 0, len(names))
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		e, ok := r.tools[n]
		if !ok {
			return nil, fmt.Errorf("unknown tool %q", n)
		}
		if seen[n] {
			return nil, fmt.Errorf("tool %q listed twice", n)
		}
		seen[n] = true
		specs = append(specs, llm.ToolSpec{
			Name:        n,
			Description: e.tool.Description,
			Parameters:  bytes.Clone(e.tool.Parameters),
		})
	}
	return specs, nil
}
