package transcript

import (
	"html/template"
	"strconv"
	"time"

	"github.com/tetherdev/tether/eventlog"
)

// Block is one turn, or the events between two turns (a "gap": compaction
// while idle, model switches, discarded messages). Its ID is stable: the
// turn number or the first seq of the gap.
type Block struct {
	ID      string
	Turn    int // 0 for a gap
	RetryOf int
	First   int64 // seq of the first event in the block
	Last    int64 // seq of the last event applied to it
	Start   time.Time
	End     *End // nil while the turn is open
	// Entries are the block's steps and the notes between them, in log
	// order.
	Entries []Entry
	Usage   Usage
	// Rewound is set on a turn a later rewind went back past: it is still
	// shown, set apart, but no longer in the conversation.
	Rewound *Rewound
}

// Entry is a step or a note of a block.
type Entry struct {
	Step *Step
	Note *Item
}

// Open reports whether the block is a turn that has not ended.
func (b *Block) Open() bool { return b.Turn > 0 && b.End == nil }

// Rewindable reports whether an operator may offer a rewind to the end
// of this block: a turn that ended and was not rewound past.
func (b *Block) Rewindable() bool { return b.IsTurn() && b.End != nil && b.Rewound == nil }

// IsTurn reports whether the block is a turn (not a gap).
func (b *Block) IsTurn() bool { return b.Turn > 0 }

// End is how a turn closed.
type End struct {
	Reason eventlog.EndReason
	Error  string
	At     time.Time
	Seq    int64 // of the turn/end event
	// AsOf is where the session settled after the turn: the status event
	// right after turn/end when there is one (the agent idle), else Seq.
	AsOf int64
}

// Failed reports whether the turn ended by a failure of any kind.
func (e *End) Failed() bool {
	return e.Reason == eventlog.EndFailed || e.Reason == eventlog.EndBudget || e.Reason == eventlog.EndBlocked
}

// Step is one model request and the tool calls it asked for.
type Step struct {
	Turn, Step int
	Selection  eventlog.Selection
	Start      time.Time
	Ended      bool
	Header     *eventlog.RequestHeader
	Context    *eventlog.RequestContext
	Items      []*Item
	// Calling is set while the model call is in flight: no message or
	// failed attempt has been recorded for the step yet.
	Calling bool
	Timing  *eventlog.StreamTiming
	Usage   Usage
}

// LiveID is the DOM ID of the step's live-token area.
func (s *Step) LiveID() string { return "live-" + strconv.Itoa(s.Turn) + "-" + strconv.Itoa(s.Step) }

// Kind says what an Item shows.
type Kind string

// Item kinds.
const (
	KindUser      Kind = "user"      // a claimed message entering the context
	KindSystem    Kind = "system"    // the system prompt (recorded when it changed)
	KindRuntime   Kind = "runtime"   // a runtime-context snapshot
	KindAssistant Kind = "assistant" // assistant text, as Markdown
	KindCall      Kind = "call"      // a tool call with its result
	KindAttempt   Kind = "attempt"   // a failed model call
	KindCompacted Kind = "compacted" // a compaction summary
	KindRewound   Kind = "rewound"   // a rewind (session/rewound), where it happened
	KindNote      Kind = "note"      // anything else worth a line
)

// Item is one thing shown in a step, or a note in a block.
type Item struct {
	Kind Kind
	Seq  int64
	At   time.Time
	// Text is plain text (user, system, runtime, notes, compaction).
	Text string
	// HTML is rendered Markdown (assistant, compaction summaries).
	HTML template.HTML
	// MessageID names a user message.
	MessageID eventlog.MessageID
	// Class qualifies a note for styling: "warn", "error" or "".
	Class string
	// Keep is how many recent messages a compaction kept verbatim.
	Keep int
	// Finish is an assistant message's finish reason.
	Finish eventlog.FinishReason
	// Call is set for KindCall.
	Call *Call
	// Failure is set for KindAttempt.
	Failure *eventlog.Failure
}

// Call is one tool call: what the model asked, whether it started, and its
// result once committed.
type Call struct {
	ID        string
	Name      string
	Arguments string // indented JSON
	Started   bool
	Result    *Result
}

// Result is a committed tool result.
type Result struct {
	Content       string
	Preview       string // the first PreviewBytes of Content, cut at a rune
	Long          bool   // Content is longer than Preview
	IsError       bool
	ConcludesTurn bool
	// Outcome says why the loop answered for the tool (denied, canceled,
	// unavailable, failed, abandoned); empty when the tool answered.
	Outcome eventlog.ToolOutcome
}

// PreviewBytes bounds the preview of a tool result shown before expanding.
const PreviewBytes = 600

// Usage sums tokens and, when prices are known, their cost.
type Usage struct {
	Input, Output, Cached int64
	Cost                  float64
	Priced                bool
}

// Add adds u2 to u.
func (u *Usage) Add(u2 Usage) {
	u.Input += u2.Input
	u.Output += u2.Output
	u.Cached += u2.Cached
	u.Cost += u2.Cost
	u.Priced = u.Priced || u2.Priced
}

// Tokens is input plus output tokens.
func (u Usage) Tokens() int64 { return u.Input + u.Output }
