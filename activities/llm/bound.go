package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/internal/text"
)

// Limits on what a model sends back. The model activity's result is a
// Temporal payload (2 MiB at most) recorded in history, so a reply is bounded
// far below that, measured as the JSON the payload holds.
const (
	// MaxReplyBytes bounds a whole assistant message as JSON. When a reply
	// is over it, the largest tool arguments are dropped until the calls
	// fit, then the text is cut to what is left; both with a notice.
	MaxReplyBytes = 1 << 20
	// MaxArgumentsBytes bounds one tool call's arguments as JSON. Larger
	// arguments are dropped (see DroppedArguments): the call is still
	// recorded, and its result is an error saying why.
	MaxArgumentsBytes = 256 << 10
	// MaxToolCalls bounds the tool calls of one reply; calls past it are
	// dropped, with a notice in the text.
	MaxToolCalls = 128
	// MaxToolCallIDBytes bounds a tool call ID; a longer one is replaced
	// like an empty one (see NormalizeToolCalls).
	MaxToolCallIDBytes = 128
	// MaxToolNameBytes bounds a tool name. Registered names are at most 64
	// bytes, so a longer one names no tool; it is cut, and the call's result
	// says the tool is unknown.
	MaxToolNameBytes = 64
	// MaxModelNameBytes bounds the model name a server reports.
	MaxModelNameBytes = 256
)

// NormalizeToolCalls gives every call a usable, unique ID, deterministically,
// so each call has its own idempotency key and its own arguments: the log
// finds a call's arguments by its ID. A call keeps its ID when it is the
// first with it and the ID is 1 to MaxToolCallIDBytes of printable ASCII
// without spaces. A repeated ID gets "_<index>" appended (index from 0 in
// the reply); an empty, overlong or malformed one becomes "call_<index>";
// either gets a further "_<n>" if that too is taken. Names over
// MaxToolNameBytes are cut. calls is not modified.
func NormalizeToolCalls(calls []eventlog.ToolCallRequest) []eventlog.ToolCallRequest {
	if len(calls) == 0 {
		return calls
	}
	out := slices.Clone(calls)
	taken := make(map[string]bool, len(out))
	keep := make([]bool, len(out))
	for i, c := range out {
		if validCallID(c.ID) && !taken[c.ID] {
			taken[c.ID], keep[i] = true, true
		}
	}
	for i := range out {
		if len(out[i].Name) > MaxToolNameBytes {
			out[i].Name = cutBytes(out[i].Name, MaxToolNameBytes) + "…"
		}
		if keep[i] {
			continue
		}
		out[i].ID = freshID(out[i].ID, i, taken)
		taken[out[i].ID] = true
	}
	return out
}

// freshID is the replacement ID of the call at index i (see
// NormalizeToolCalls).
func freshID(id string, i int, taken map[string]bool) string {
	idx := strconv.Itoa(i)
	if validCallID(id) {
		if c := id + "_" + idx; validCallID(c) && !taken[c] {
			return c
		}
	}
	c := "call_" + idx
	for n := 1; taken[c]; n++ {
		c = "call_" + idx + "_" + strconv.Itoa(n)
	}
	return c
}

func validCallID(id string) bool {
	if id == "" || len(id) > MaxToolCallIDBytes {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return false
		}
	}
	return true
}

// Bound normalises a reply's tool calls and keeps the reply within
// MaxReplyBytes as JSON (see the limits). Every cut is said in the reply:
// a notice at the end of the text, or a call whose arguments were dropped.
func Bound(m eventlog.AssistantMessage) eventlog.AssistantMessage {
	return BoundTo(m, MaxReplyBytes)
}

// BoundTo is Bound with maxReply bytes of JSON in place of MaxReplyBytes
// (a worker's --model-reply-max-bytes; 0 or less: MaxReplyBytes). Over
// Temporal's 2 MiB payload limit it needs a blob store for the reply.
func BoundTo(m eventlog.AssistantMessage, maxReply int) eventlog.AssistantMessage {
	if maxReply <= 0 {
		maxReply = MaxReplyBytes
	}
	var notes []string
	if n := len(m.ToolCalls); n > MaxToolCalls {
		m.ToolCalls = m.ToolCalls[:MaxToolCalls:MaxToolCalls]
		notes = append(notes, fmt.Sprintf("[%d more tool calls dropped: at most %d in one reply]", n-MaxToolCalls, MaxToolCalls))
	}
	m.ToolCalls = NormalizeToolCalls(m.ToolCalls)
	for i, c := range m.ToolCalls {
		m.ToolCalls[i].Arguments = boundArguments(c.Arguments)
	}
	if len(m.Model) > MaxModelNameBytes {
		m.Model = cutBytes(m.Model, MaxModelNameBytes) + "…"
	}
	text := m.Text
	m.Text = ""
	// Room for the notes, as JSON, each on a line of its own.
	reserve := EncodedLen(strings.Join(notes, "\n")) + 2*len(notes)
	for encodedSize(m)+reserve > maxReply {
		if !dropLargest(m.ToolCalls) {
			break
		}
	}
	// The text's field (`"text":"",`) is left out of m while it is empty.
	m.Text = cutText(text, maxReply-encodedSize(m)-reserve-len(`"text":"",`), maxReply)
	if len(notes) > 0 {
		m.Text = strings.TrimPrefix(m.Text+"\n"+strings.Join(notes, "\n"), "\n")
	}
	return m
}

// boundArguments keeps arguments that are JSON within MaxArgumentsBytes.
// Arguments that are not JSON (no adapter passes such, but a stream hook
// might) are kept as a JSON string holding them, as the adapters keep text
// that is not JSON, so the reply still encodes.
func boundArguments(args json.RawMessage) json.RawMessage {
	if len(args) == 0 {
		return json.RawMessage("{}")
	}
	b, err := json.Marshal(args)
	if err != nil {
		b, _ = json.Marshal(string(args))
		args = b
	}
	if len(b) > MaxArgumentsBytes {
		return dropArguments(len(b), MaxArgumentsBytes)
	}
	return args
}

// cutText cuts text to budget bytes of JSON, its notice included, which
// says the reply's cap.
func cutText(text string, budget, maxReply int) string {
	if EncodedLen(text) <= budget {
		return text
	}
	notice := func(n int) string {
		return fmt.Sprintf("\n[reply cut: %d of %d bytes kept; a reply may be at most %d bytes]", n, len(text), maxReply)
	}
	// The notice with len(text) kept is at least as long as the real one.
	n := CutEncoded(text, max(budget-EncodedLen(notice(len(text))), 0))
	return text[:n] + notice(n)
}

// dropLargest drops the largest arguments not yet dropped; false when none
// is left.
func dropLargest(calls []eventlog.ToolCallRequest) bool {
	best := -1
	for i, c := range calls {
		if _, _, dropped := DroppedArguments(c.Arguments); !dropped && (best < 0 || len(c.Arguments) > len(calls[best].Arguments)) {
			best = i
		}
	}
	if best < 0 {
		return false
	}
	calls[best].Arguments = dropArguments(len(calls[best].Arguments), MaxArgumentsBytes)
	return true
}

// encodedSize is m's size as JSON; boundArguments made every part encodable.
func encodedSize(m eventlog.AssistantMessage) int {
	b, _ := json.Marshal(m)
	return len(b)
}

// droppedKey marks arguments the model activity did not keep. No tool's
// real arguments use it: it is only ever written by dropArguments.
const droppedKey = "tether_dropped_arguments"

type dropped struct {
	Bytes int `json:"bytes"`
	Limit int `json:"limit"`
}

func dropArguments(n, limit int) json.RawMessage {
	b, _ := json.Marshal(map[string]dropped{droppedKey: {Bytes: n, Limit: limit}})
	return b
}

// DroppedArguments reports whether args are the marker Bound leaves for
// arguments it dropped, with their size and the limit they broke. The tool
// activity answers such a call with an error result (DroppedNotice)
// instead of running the tool.
func DroppedArguments(args json.RawMessage) (n, limit int, ok bool) {
	if len(args) > 128 || !bytes.Contains(args, []byte(droppedKey)) {
		return 0, 0, false
	}
	var m map[string]dropped
	if json.Unmarshal(args, &m) != nil || len(m) != 1 {
		return 0, 0, false
	}
	d, ok := m[droppedKey]
	return d.Bytes, d.Limit, ok
}

// DroppedNotice is the error result of a call whose arguments were dropped.
func DroppedNotice(n, limit int) string {
	return fmt.Sprintf("the tool did not run: the arguments of this call were %d bytes, over the limit of %d bytes, "+
		"so they were not kept; call it again with smaller arguments", n, limit)
}

// cutBytes cuts s to at most n bytes on a rune boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return text.Cut(s, n)
}
