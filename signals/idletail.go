package signals

import (
	"fmt"
	"time"

	"github.com/tetherdev/tether/eventlog"
)

// IdleTail is the journal of a turn that ends the plainest way: its last
// step's model call (activity modelActivityID) answered without a tool
// call, and the agent went idle at once. Its four events (the assistant
// message, by reference to the call's result, step/end, turn/end
// completed, status idle) are all fixed by the call's ID, the log
// position from and the workflow task's time at, which history holds. So
// a run whose settings say so writes no journal marker for it: the
// workflow task's status search attribute set to idle stands for it, and
// projection derives these events there.
func IdleTail(from int64, at time.Time, modelActivityID string) (Journal, error) {
	turn, step, ok := ParseModelActivityID(modelActivityID)
	if !ok {
		return Journal{}, fmt.Errorf("idle tail: %q is not a model activity ID", modelActivityID)
	}
	envs := []eventlog.Envelope{{Seq: from, At: at, Type: eventlog.TypeAssistantMessage, Ref: eventlog.ActivityRef(modelActivityID)}}
	for i, e := range []eventlog.Event{
		eventlog.StepEnd{Turn: turn, Step: step},
		eventlog.TurnEnd{Turn: turn, Reason: eventlog.EndCompleted},
		eventlog.StatusChanged{Status: eventlog.StatusIdle},
	} {
		env, err := eventlog.Encode(from+1+int64(i), at, "", e)
		if err != nil {
			return Journal{}, err
		}
		envs = append(envs, env)
	}
	return NewJournal(envs)
}

// Equal reports whether j and o journal the same events, to the
// millisecond and the byte.
func (j Journal) Equal(o Journal) bool {
	if j.From != o.From || j.At != o.At || len(j.Entries) != len(o.Entries) {
		return false
	}
	for i, e := range j.Entries {
		f := o.Entries[i]
		if e.Type != f.Type || e.Delta != f.Delta || e.Ref != f.Ref || string(e.Data) != string(f.Data) {
			return false
		}
	}
	return true
}
