package loop

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// The loop is tested with no Temporal at all: a driver plays the shell. It
// answers hook commands at once (with the loop's defaults unless a test
// sets a hook), keeps activity and timer commands in flight until the test
// finishes them, and collects every command and recorded event.

var t0 = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)

type driver struct {
	t   *testing.T
	l   *Loop
	now time.Time

	// Hook answers; nil means the loop's default.
	boundary func() error
	model    func(def signals.Selection) signals.Selection
	preStep  func(batch []Message) Decision
	runtime  func() string
	request  func(def signals.CallConfig) signals.CallConfig
	recover  func(f eventlog.Failure) Action
	stopping func(d *driver) error
	toolPre  func(c Call) (denied string, err error)
	toolPost func(c Call, out signals.ToolOutput) signals.ToolOutput

	inflight    []Command         // activity and timer commands not yet finished
	seen        []Command         // every command, in order, carrying its journal (Carry)
	markers     []signals.Journal // journals no command carried: the shell's markers
	interrupted int
}

func newDriver(t *testing.T, opts signals.AgentOptions, cfg ...func(*Config)) *driver {
	c := Config{AgentID: "a1", Options: opts}
	for _, f := range cfg {
		f(&c)
	}
	return &driver{t: t, l: New(c), now: t0}
}

// step feeds one input and plays the shell for the commands that follow.
func (d *driver) step(in Input) Ready {
	d.t.Helper()
	d.now = d.now.Add(time.Millisecond)
	rd := d.l.Step(d.now, in)
	cmds, left := Carry(rd)
	d.handle(cmds)
	if !left.IsZero() {
		d.markers = append(d.markers, left)
	}
	if !isRequest(in) && d.l.Due() {
		d.step(Resume{}) // the shell wakes when work is due (after it could continue as new)
	}
	return rd
}

// isRequest: requests are followed by an explicit resume in tests, so a
// test can see what a request alone does.
func isRequest(in Input) bool {
	switch in.(type) {
	case Accept, Make, Cancel, Dispose, SelectModel, Maintain, Rewind:
		return true
	}
	return false
}

func (d *driver) handle(cmds []Command) {
	for _, c := range cmds {
		d.seen = append(d.seen, c)
		if in := d.answer(c); in != nil {
			d.step(in)
		}
	}
}

// answer is a hook command's outcome, or nil for commands the test finishes.
func (d *driver) answer(c Command) Input {
	switch c := c.(type) {
	case RunHooks:
		switch {
		case c.Point == PointStepBoundary && d.boundary != nil:
			return HooksRan{Point: c.Point, Err: d.boundary()}
		case c.Point == PointRuntimeContext && d.runtime != nil:
			return HooksRan{Point: c.Point, Text: d.runtime()}
		case c.Point == PointTurnStopping && d.stopping != nil:
			return HooksRan{Point: c.Point, Err: d.stopping(d)}
		}
		return HooksRan{Point: c.Point}
	case ChooseModel:
		if d.model != nil {
			return ModelChosen{Selection: d.model(c.Default)}
		}
		return ModelChosen{Selection: c.Default}
	case DecidePreStep:
		if d.preStep != nil {
			return PreStepDecided{Decision: d.preStep(c.Batch)}
		}
		return PreStepDecided{Decision: Enter(c.Batch)}
	case ShapeRequest:
		if d.request != nil {
			return RequestShaped{Config: d.request(c.Default)}
		}
		return RequestShaped{Config: c.Default}
	case Recover:
		if d.recover != nil {
			return Recovered{Action: d.recover(c.Failure)}
		}
		return Recovered{}
	case RunToolPre:
		if d.toolPre != nil {
			denied, err := d.toolPre(c.Call)
			return ToolPreRan{CallID: c.Call.ID, Denied: denied, Err: err}
		}
		return ToolPreRan{CallID: c.Call.ID}
	case RunToolPost:
		if d.toolPost != nil {
			return ToolPostRan{CallID: c.Call.ID, Output: d.toolPost(c.Call, c.Result)}
		}
		return ToolPostRan{CallID: c.Call.ID, Output: c.Result}
	case Interrupt:
		d.interrupted++
	case CallModel, StartTool, StartTimer, Summarize, StartChild, ListTools:
		d.inflight = append(d.inflight, c)
	}
	return nil
}

// Requests.

func (d *driver) followup(id string) Ready {
	return d.step(Accept{Message: msg(id), List: eventlog.NextTurn, Wake: true})
}

func (d *driver) steer(id string) Ready {
	return d.step(Accept{Message: msg(id), List: eventlog.NextStep, Wake: true})
}

func (d *driver) inject(id string) Ready {
	return d.step(Accept{Message: msg(id), List: eventlog.NextStep})
}

func msg(id string) signals.Message {
	return signals.Message{ID: eventlog.MessageID(id), Content: "content " + id}
}

// resume is what the shell does when a request made work due.
func (d *driver) resume() { d.step(Resume{}) }

// Finishing in-flight commands.

// model finishes the oldest model call with out.
func (d *driver) answerModel(out signals.ModelOutput) CallModel {
	d.t.Helper()
	c := take[CallModel](d)
	d.step(ModelDone{Output: out})
	return c
}

func (d *driver) failModel(f eventlog.Failure) CallModel {
	d.t.Helper()
	c := take[CallModel](d)
	d.step(ModelDone{Failure: &f})
	return c
}

// finishTool finishes the in-flight call callID with content.
func (d *driver) finishTool(callID, content string) StartTool {
	d.t.Helper()
	for i, c := range d.inflight {
		if st, ok := c.(StartTool); ok && st.Call.ID == callID {
			d.inflight = append(d.inflight[:i:i], d.inflight[i+1:]...)
			d.step(ToolDone{CallID: callID, Output: signals.ToolOutput{CallID: callID, Name: st.Call.Name, Content: content},
				Ref: eventlog.ActivityRef(st.ActivityID)})
			return st
		}
	}
	d.t.Fatalf("tool call %s is not in flight (in flight: %v)", callID, d.inflight)
	return StartTool{}
}

// cancelInflight reports every in-flight command canceled, as the shell
// does after Interrupt.
func (d *driver) cancelInflight() {
	now := d.inflight
	d.inflight = nil
	for _, c := range now {
		switch c := c.(type) {
		case CallModel:
			d.step(ModelDone{Failure: &eventlog.Failure{Kind: eventlog.FailureCanceled, Message: "canceled"}})
		case StartTool:
			d.step(ToolDone{CallID: c.Call.ID, Canceled: true})
		case StartTimer:
			if _, ok := signals.ParseScheduleTimer(c.ID); ok {
				d.inflight = append(d.inflight, c) // a scheduled message's timer belongs to no turn
				continue
			}
			d.step(TimerFired{ID: c.ID, Canceled: true})
		case Summarize:
			d.step(Summarized{Err: fmt.Errorf("canceled")})
		case StartChild:
			d.inflight = append(d.inflight, c) // a turn's interrupt never cancels a child workflow
		case ListTools:
			d.step(ToolsListed{Err: fmt.Errorf("canceled")})
		}
	}
}

// take removes the oldest in-flight command of type C.
func take[C Command](d *driver) C {
	d.t.Helper()
	for i, c := range d.inflight {
		if v, ok := c.(C); ok {
			d.inflight = append(d.inflight[:i:i], d.inflight[i+1:]...)
			return v
		}
	}
	var zero C
	d.t.Fatalf("no %T in flight (in flight: %v)", zero, d.inflight)
	return zero
}

// inFlight lists the in-flight commands of type C.
func inFlight[C Command](d *driver) []C {
	var out []C
	for _, c := range d.inflight {
		if v, ok := c.(C); ok {
			out = append(out, v)
		}
	}
	return out
}

func seen[C Command](d *driver) []C {
	var out []C
	for _, c := range d.seen {
		if v, ok := c.(C); ok {
			out = append(out, v)
		}
	}
	return out
}

// Reading the log.

func (d *driver) events() []eventlog.Event {
	d.t.Helper()
	page := d.l.Page(signals.LogRequest{})
	evs, err := eventlog.DecodeAll(page.Events)
	require.NoError(d.t, err)
	return evs
}

func (d *driver) types() []eventlog.Type {
	var out []eventlog.Type
	for _, e := range d.events() {
		out = append(out, e.Type())
	}
	return out
}

func only[E eventlog.Event](evs []eventlog.Event) []E {
	var out []E
	for _, e := range evs {
		if v, ok := e.(E); ok {
			out = append(out, v)
		}
	}
	return out
}

// Model replies.

func answer(text string) signals.ModelOutput {
	return signals.ModelOutput{Text: text, FinishReason: eventlog.FinishStop}
}

func calls(names ...string) signals.ModelOutput {
	out := signals.ModelOutput{FinishReason: eventlog.FinishToolCalls}
	for i, n := range names {
		out.ToolCalls = append(out.ToolCalls, eventlog.ToolCallRequest{
			ID: fmt.Sprintf("c%d", i), Name: n, Arguments: json.RawMessage(`{}`),
		})
	}
	return out
}

// requireOK fails the test when the loop met an invalid transition.
func (d *driver) requireOK() {
	d.t.Helper()
	require.NoError(d.t, d.l.Err())
}
