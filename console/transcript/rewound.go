package transcript

import (
	"fmt"

	"github.com/tetherdev/tether/eventlog"
)

// Rewound says a turn was rewound past (session/rewound): it stays in the
// transcript as it happened, but is no longer in the conversation the
// model sees.
type Rewound struct {
	ToTurn int    // the turn whose end the agent went back to
	By     string // who asked, when the event names them
	Seq    int64  // of the session/rewound event
}

// rewound sets apart the turns e rewound past, and shows the rewind as a
// note where it happened. The blocks it sets apart are changed by this
// event (their Last is its seq), so Since brings them to a live page.
func (t *Transcript) rewound(env eventlog.Envelope, e eventlog.SessionRewound) *Block {
	mark := &Rewound{ToTurn: e.ToTurn, By: e.By, Seq: env.Seq}
	for _, b := range t.Blocks {
		if b.IsTurn() && b.Rewound == nil && b.Turn > e.ToTurn && b.Turn <= e.Past {
			b.Rewound, b.Last = mark, env.Seq
		}
	}
	it := &Item{Kind: KindRewound, Seq: env.Seq, At: env.At, Text: RewindNote(e), Class: "rewind"}
	return t.add(it)
}

// RewindNote is the line a rewind shows where it happened.
func RewindNote(e eventlog.SessionRewound) string {
	by := ""
	if e.By != "" {
		by = " by " + e.By
	}
	past := fmt.Sprintf("turns %d to %d are", e.ToTurn+1, e.Past)
	if e.Past == e.ToTurn+1 {
		past = fmt.Sprintf("turn %d is", e.Past)
	}
	return fmt.Sprintf("rewound to the end of turn %d%s: %s no longer in the conversation, which goes on from the end of turn %d",
		e.ToTurn, by, past, e.ToTurn)
}
