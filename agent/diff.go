package agent

import (
	"reflect"

	"github.com/tetherdev/tether/eventlog"
)

// Divergence is where two conversations part (Diverge): the messages they
// share from the start, and what each holds from there on.
type Divergence struct {
	// Common is how many messages, from the first, the two share.
	Common int
	// A and B are each conversation's messages from Common on (either may
	// be empty: one conversation goes on where the other stops).
	A, B []eventlog.Message
}

// Same reports whether the conversations are the same.
func (d Divergence) Same() bool { return len(d.A) == 0 && len(d.B) == 0 }

// Diverge compares two conversations (Lineage.Conversation of a fork and
// its source, say) message by message from the first: a message differs
// when any of its fields does (role, content, tool calls, the call it
// answers). It is what `starter diff` and the console's diff view show.
func Diverge(a, b []eventlog.Message) Divergence {
	n := 0
	for n < min(len(a), len(b)) && reflect.DeepEqual(a[n], b[n]) {
		n++
	}
	return Divergence{Common: n, A: a[n:], B: b[n:]}
}
