package console

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/tetherdev/tether/console/transcript"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// LastEvents is how many of a closed agent's last log events its page
// lists beside how it ended.
const LastEvents = 8

// ending is how and why a closed agent ended, for the status panel.
type ending struct {
	How signals.Ended
	Why string // the failure, the termination's reason, the dispose's cause
	At  time.Time
}

// lastEvent is one log event as the closed agent's panel lists it.
type lastEvent struct {
	Seq  int64
	At   time.Time
	Type eventlog.Type
	Data string // its data, compact and clipped
}

// endingOf is e for the page, a disposed agent's cause read from its log;
// nil when how it ended could not be read.
func endingOf(e *projection.Ending, log []eventlog.Envelope) *ending {
	if e == nil {
		return nil
	}
	out := &ending{How: e.How, Why: e.Why, At: e.At}
	if out.How == signals.EndedDisposed {
		for i := len(log) - 1; i >= 0 && out.Why == ""; i-- {
			if ev, err := eventlog.Decode(log[i]); err == nil {
				if d, ok := ev.(eventlog.AgentDisposing); ok {
					out.Why = d.Cause
				}
			}
		}
	}
	return out
}

// lastEvents are the log's last LastEvents events, oldest first.
func lastEvents(log []eventlog.Envelope) []lastEvent {
	tail := log[max(0, len(log)-LastEvents):]
	out := make([]lastEvent, len(tail))
	for i, env := range tail {
		var b bytes.Buffer
		if json.Compact(&b, env.Data) != nil {
			b.Reset()
			b.Write(env.Data)
		}
		out[i] = lastEvent{Seq: env.Seq, At: env.At, Type: env.Type, Data: transcript.Clip(b.String(), 200)}
	}
	return out
}
