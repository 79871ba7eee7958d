package signals

import (
	"time"

	"github.com/tetherdev/tether/eventlog"
)

// Route is where a message goes: the inbox list it joins and whether it
// wakes an idle agent.
type Route struct {
	List eventlog.List
	Wake bool
}

// MessageOp is a message operation whose name fixes its route (seed 003's
// followup, steer and inject): its signal and its update, which share the
// name, and the route both deliver to. The client sends on these and the
// workflow receives on them, both reading Route from here, so a route is
// written in one place. A send names its route itself (Send.Route).
type MessageOp struct {
	Signal Signal[Message]
	Update Update[Message, Ack]
	Route  Route
}

// The routed message operations.
var (
	// Followup queues a message for a turn of its own and wakes the agent.
	Followup = MessageOp{FollowupSignal, FollowupUpdate, Route{List: eventlog.NextTurn, Wake: true}}
	// Steer queues a message for the next step boundary and wakes the agent.
	Steer = MessageOp{SteerSignal, SteerUpdate, Route{List: eventlog.NextStep, Wake: true}}
	// Inject queues a message for the next step boundary without waking
	// the agent.
	Inject = MessageOp{InjectSignal, InjectUpdate, Route{List: eventlog.NextStep, Wake: false}}
)

// MessageOps lists the routed message operations in a fixed order (the
// workflow registers their handlers in it).
func MessageOps() []MessageOp { return []MessageOp{Followup, Steer, Inject} }

// RouteOf answers the route of the message operation named name (a signal's
// or an update's name); false for a name with no fixed route, such as send.
func RouteOf(name string) (Route, bool) {
	for _, op := range MessageOps() {
		if op.Signal.Name == name {
			return op.Route, true
		}
	}
	return Route{}, false
}

// Send is the send that delivers m on r at at (zero: now). A message for
// later travels this way whatever its operation: a scheduled followup is a
// send on Followup's route.
func (r Route) Send(m Message, at time.Time) Send {
	return Send{Message: m, List: r.List, Wake: r.Wake, At: at}
}

// Route is where s goes.
func (s Send) Route() Route { return Route{List: s.List, Wake: s.Wake} }
