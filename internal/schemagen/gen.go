// Command schemagen generates schema/tether.schema.json, the
// language-neutral description of Tether's wire contract, from the Go
// types and the named descriptors of signals and eventlog: the workflow
// type, task queue and search attributes, every signal, update (argument
// and result) and query (result), the start input, the session events and
// the live feed's events. Names come from the descriptors, never retyped;
// the test in this package fails when the checked-in file and the Go
// types disagree. Regenerate with `go generate ./internal/schemagen`.
package main

import (
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Names is the contract's table of durable names, under "x-tether": each
// payload is a JSON pointer into the document's $defs.
type Names struct {
	Workflow         Workflow                 `json:"workflow"`
	Signals          map[string]string        `json:"signals"`
	Updates          map[string]Exchange      `json:"updates"`
	Queries          map[string]Exchange      `json:"queries"`
	SearchAttributes map[string]string        `json:"searchAttributes"`
	Events           map[eventlog.Type]string `json:"events"`
	Rejections       map[string]Rejection     `json:"rejections"`
	Feed             Feed                     `json:"feed"`
}

// Workflow names the agent workflow, its default task queue, input and
// result.
type Workflow struct {
	Type      string `json:"type"`
	TaskQueue string `json:"taskQueue"`
	Input     string `json:"input"`
	Result    string `json:"result"`
}

// Exchange is an update's or a query's argument (absent when it takes
// none) and its result.
type Exchange struct {
	Input  string `json:"input,omitempty"`
	Result string `json:"result"`
}

// Rejection is an update rejection's ApplicationError type.
type Rejection struct {
	Retryable bool `json:"retryable"`
}

// Feed is the live feed's event, the data of each Server-Sent Event.
type Feed struct {
	Event string `json:"event"`
}

// contract lists the descriptors. Adding a signal, update or query to
// signals without listing it here fails the completeness test.
type contract struct {
	names Names
	roots []reflect.Type
}

func (c *contract) def(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	c.roots = append(c.roots, t)
	return "#/$defs/" + defName(t)
}

// defName names t's $def by package and type: "signals.Message",
// "eventlog.Message".
func defName(t reflect.Type) string { return path.Base(t.PkgPath()) + "." + t.Name() }

func signal[T any](c *contract, s signals.Signal[T]) {
	c.names.Signals[s.Name] = c.def(reflect.TypeFor[T]())
}

func update[In, Out any](c *contract, u signals.Update[In, Out]) {
	c.names.Updates[u.Name] = Exchange{Input: c.def(reflect.TypeFor[In]()), Result: c.def(reflect.TypeFor[Out]())}
}

func query[In, Out any](c *contract, q signals.Query[In, Out]) {
	e := Exchange{Result: c.def(reflect.TypeFor[Out]())}
	if in := reflect.TypeFor[In](); in != reflect.TypeFor[struct{}]() {
		e.Input = c.def(in)
	}
	c.names.Queries[q.Name] = e
}

func describe() (*contract, error) {
	c := &contract{names: Names{Signals: map[string]string{}, Updates: map[string]Exchange{},
		Queries: map[string]Exchange{}, SearchAttributes: signals.SearchAttributeKinds,
		Events: map[eventlog.Type]string{}, Rejections: map[string]Rejection{}}}
	c.names.Workflow = Workflow{Type: signals.AgentWorkflow, TaskQueue: signals.TaskQueue,
		Input: c.def(reflect.TypeFor[signals.AgentInput]()), Result: c.def(reflect.TypeFor[signals.AgentResult]())}
	signal(c, signals.FollowupSignal)
	signal(c, signals.SteerSignal)
	signal(c, signals.InjectSignal)
	signal(c, signals.SendSignal)
	signal(c, signals.CancelSignal)
	signal(c, signals.DisposeSignal)
	signal(c, signals.SelectModelSignal)
	signal(c, signals.ChildReportSignal)
	update(c, signals.FollowupUpdate)
	update(c, signals.SteerUpdate)
	update(c, signals.InjectUpdate)
	update(c, signals.SendUpdate)
	update(c, signals.MaintainUpdate)
	update(c, signals.WaitIdleUpdate)
	update(c, signals.SelectModelUpdate)
	update(c, signals.SpawnUpdate)
	update(c, signals.ApproveUpdate)
	update(c, signals.DenyUpdate)
	update(c, signals.AnswerUpdate)
	update(c, signals.RewindUpdate)
	query(c, signals.StatusQuery)
	query(c, signals.LogQuery)
	query(c, signals.FeedQuery)
	for _, typ := range []string{signals.RejectInvalid, signals.RejectDuplicate, signals.RejectReused,
		signals.RejectDisposed, signals.RejectIdle, signals.RejectContinue, signals.RejectDecision, signals.RejectEdit,
		signals.RejectScheduled, signals.RejectBusy, signals.RejectSelection, signals.RejectRewind, signals.RejectLost} {
		// Only a busy agent's refusal is retryable (workflows.reject).
		c.names.Rejections[typ] = Rejection{Retryable: typ == signals.RejectBusy}
	}
	c.names.Feed.Event = c.def(reflect.TypeFor[signals.StreamEvent]())
	c.def(reflect.TypeFor[eventlog.Envelope]())
	// Every event type, with the Go type eventlog.Decode gives it.
	for _, typ := range eventlog.Types {
		e, err := eventlog.Decode(eventlog.Envelope{Type: typ, Data: json.RawMessage("{}")})
		if err != nil {
			return nil, fmt.Errorf("event %s: %w", typ, err)
		}
		c.names.Events[typ] = c.def(reflect.TypeOf(e))
	}
	return c, nil
}

// Schemas of types whose JSON is not what their Go shape says.
var (
	// durationInput is a duration a client sends (signals' policies,
	// signals/duration.go): nanoseconds or a Go duration string.
	durationInput = &jsonschema.Schema{
		Description: `A duration: an integer number of nanoseconds (the form Tether writes) or a Go duration string such as "2s" or "1h30m".`,
		AnyOf: []*jsonschema.Schema{{Type: "integer"},
			{Type: "string", Pattern: `^[-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$`}},
	}
	// durationOutput is a duration only Tether writes (session events).
	durationOutput = &jsonschema.Schema{Type: "integer", Description: "A duration in nanoseconds."}
	timeSchema     = &jsonschema.Schema{Type: "string", Format: "date-time"}
	anyJSON        = &jsonschema.Schema{Description: "Any JSON value, kept as it was sent."}
	journalEntry   = &jsonschema.Schema{
		Type:        "array",
		Description: "One session event in a journal: [type or its short code, milliseconds after the journal's at, ref, data], trailing empty parts left out (signals.JournalEntry).",
		PrefixItems: []*jsonschema.Schema{{Type: "string"}, {Type: "integer"}, {Type: "string"}, anyJSON},
		MinItems:    jsonschema.Ptr(2), MaxItems: jsonschema.Ptr(4),
	}
)

var (
	durationType = reflect.TypeFor[time.Duration]()
	special      = map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[time.Time]():            timeSchema,
		reflect.TypeFor[json.RawMessage]():      anyJSON,
		reflect.TypeFor[eventlog.JSON]():        anyJSON,
		reflect.TypeFor[signals.JournalEntry](): journalEntry,
	}
)

// Generate is the contract as the checked-in file holds it.
func Generate() ([]byte, error) {
	c, err := describe()
	if err != nil {
		return nil, err
	}
	structs := map[string]reflect.Type{}
	for _, t := range c.roots {
		if err := collect(t, structs); err != nil {
			return nil, err
		}
	}
	defs := map[string]*jsonschema.Schema{"Duration": durationInput}
	for name, t := range structs {
		s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: overrides(t, structs)})
		if err != nil {
			return nil, err
		}
		defs[name] = nullableRefs(s)
	}
	root := &jsonschema.Schema{
		Schema: "https://json-schema.org/draft/2020-12/schema",
		ID:     "https://github.com/tetherdev/tether/schema/tether.schema.json",
		Title:  "Tether wire contract",
		Description: "Generated from Tether's Go types by internal/schemagen; do not edit. x-tether names the workflow, " +
			"task queue, signals, updates, queries, search attributes, session events and rejections; $defs holds their payloads.",
		Defs:  defs,
		Extra: map[string]any{"x-tether": c.names},
	}
	b, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// collect adds the named struct types t holds, t included, by $def name;
// two types of one name would make one $def stand for both.
func collect(t reflect.Type, into map[string]reflect.Type) error {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return collect(t.Elem(), into)
	case reflect.Struct:
	default:
		return nil
	}
	if special[t] != nil {
		return nil
	}
	if t.Name() == "" {
		return fmt.Errorf("an unnamed struct %s is on the wire", t)
	}
	if have, ok := into[defName(t)]; ok {
		if have != t {
			return fmt.Errorf("two types are named %s: %s and %s", defName(t), have, t)
		}
		return nil
	}
	into[defName(t)] = t
	for _, f := range reflect.VisibleFields(t) {
		if f.IsExported() {
			if err := collect(f.Type, into); err != nil {
				return err
			}
		}
	}
	return nil
}

// overrides are the type schemas generating t's $def with: every other
// named struct by reference, but those t embeds (whose fields it
// promotes), and durations in the form t's package reads them.
func overrides(t reflect.Type, structs map[string]reflect.Type) map[reflect.Type]*jsonschema.Schema {
	m := map[reflect.Type]*jsonschema.Schema{durationType: {Ref: "#/$defs/Duration"}}
	if t.PkgPath() == reflect.TypeFor[eventlog.Envelope]().PkgPath() {
		m[durationType] = durationOutput
	}
	for k, v := range special {
		m[k] = v
	}
	for name, s := range structs {
		m[s] = &jsonschema.Schema{Ref: "#/$defs/" + name}
	}
	delete(m, t)
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous {
			delete(m, f.Type)
		}
	}
	return m
}

// nullableRefs writes a nullable schema without a type of its own (a
// pointer to a $def) as "null or it": ForType marks it with type null,
// which beside a $ref would allow null only.
func nullableRefs(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	if slices.Equal(s.Types, []string{"null"}) {
		inner := *s
		inner.Types = nil
		return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "null"}, nullableRefs(&inner)}}
	}
	for k, p := range s.Properties {
		s.Properties[k] = nullableRefs(p)
	}
	s.Items = nullableRefs(s.Items)
	s.AdditionalProperties = nullableRefs(s.AdditionalProperties)
	for i, p := range s.AnyOf {
		s.AnyOf[i] = nullableRefs(p)
	}
	return s
}
