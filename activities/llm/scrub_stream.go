package llm

import (
	"slices"
	"strings"
)

// Stream wraps emit so no chunk it passes on holds the secret, even where
// the model wrote it across several chunks (a key streams as a dozen
// tokens): each of the text, the reasoning and every tool call's arguments
// keeps back the end of what arrived while it could still begin the
// secret, in any form the scrubber knows, and passes it on scrubbed once
// it cannot. flush passes on what is still kept back; call it when the
// stream ends, before its message is returned. Both run on the caller's
// goroutine. A nil emit, or a scrubber without a secret, passes chunks
// through unchanged.
func (s Scrubber) Stream(emit func(Chunk)) (wrapped func(Chunk), flush func()) {
	if s.r == nil || emit == nil {
		return emit, func() {}
	}
	st := &streamScrub{s: s, emit: emit, args: map[int]*string{}}
	return st.chunk, st.flush
}

type streamScrub struct {
	s               Scrubber
	emit            func(Chunk)
	text, reasoning string
	args            map[int]*string // kept-back arguments by tool index
}

func (st *streamScrub) chunk(c Chunk) {
	out := Chunk{ToolIndex: c.ToolIndex, ToolID: st.s.String(c.ToolID), ToolName: st.s.String(c.ToolName)}
	out.Text = st.pass(&st.text, c.Text)
	out.Reasoning = st.pass(&st.reasoning, c.Reasoning)
	if c.Arguments != "" {
		held := st.args[c.ToolIndex]
		if held == nil {
			held = new(string)
			st.args[c.ToolIndex] = held
		}
		out.Arguments = st.pass(held, c.Arguments)
	}
	if out.Text != "" || out.Reasoning != "" || out.Arguments != "" || out.ToolID != "" || out.ToolName != "" {
		st.emit(out)
	}
}

// pass adds delta to what held keeps back and returns the scrubbed part
// that can no longer be the start of the secret.
func (st *streamScrub) pass(held *string, delta string) string {
	if delta == "" {
		return ""
	}
	out := st.s.String(*held + delta)
	cut := st.s.keepFrom(out)
	*held = out[cut:]
	return out[:cut]
}

func (st *streamScrub) flush() {
	if st.text != "" {
		st.emit(Chunk{Text: st.text})
	}
	if st.reasoning != "" {
		st.emit(Chunk{Reasoning: st.reasoning})
	}
	indexes := make([]int, 0, len(st.args))
	for i, held := range st.args {
		if *held != "" {
			indexes = append(indexes, i)
		}
	}
	slices.Sort(indexes)
	for _, i := range indexes {
		st.emit(Chunk{ToolIndex: i, Arguments: *st.args[i]})
	}
	st.text, st.reasoning, st.args = "", "", map[int]*string{}
}

// keepFrom is where the end of text that could still begin the secret
// starts: the earliest position from which text is a proper prefix of a
// fixed form, or decodes (a unit at a time, as the second pass reads it,
// an unfinished escape at the end allowed) to a proper prefix of the
// secret. len(text) when there is none.
func (s Scrubber) keepFrom(text string) int {
	from := max(0, len(text)-s.maxHold())
	starts := unitStarts(text)
	for p := from; p < len(text); p++ {
		if s.fixedPrefix(text[p:]) || s.folded != "" && starts[p] && s.decodedPrefix(text, p) {
			return p
		}
	}
	return len(text)
}

// maxHold bounds what may be kept back: the longest fixed form, or the
// secret with every character as the longest unit (a padded character
// reference).
func (s Scrubber) maxHold() int {
	return max(s.longest, len(s.folded)*maxReference)
}

// unitStarts marks the positions of text where the second pass starts a
// unit: only there can a spelling of the secret begin.
func unitStarts(text string) []bool {
	starts := make([]bool, len(text))
	for i := 0; i < len(text); {
		starts[i] = true
		_, n := unitAt(text, i)
		i += n
	}
	return starts
}

func (s Scrubber) fixedPrefix(tail string) bool {
	for _, f := range s.forms {
		if len(tail) < len(f) && strings.HasPrefix(f, tail) {
			return true
		}
	}
	return false
}

// decodedPrefix says text[p:] decodes to a proper prefix of the secret,
// its last unit possibly unfinished.
func (s Scrubber) decodedPrefix(text string, p int) bool {
	k := 0
	for i := p; i < len(text); {
		if unfinishedEscape(text[i:]) {
			return true
		}
		dec, n := unitAt(text, i)
		for _, c := range dec {
			if k == len(s.folded) || lowerASCII(c) != s.folded[k] {
				return false
			}
			k++
		}
		i += n
	}
	return k < len(s.folded)
}

// unfinishedEscape says tail, the end of the text, is the start of an
// escape unitAt would decode once more of it arrives.
func unfinishedEscape(tail string) bool {
	if tail == "" || len(tail) >= maxReference {
		return false
	}
	if _, n := unitAt(tail, 0); n > 1 {
		return false // already a whole escape
	}
	switch tail[0] {
	case '\\':
		return len(tail) == 1 || escapePrefix(tail[1:])
	case '&':
		return referencePrefix(tail[1:])
	case '%':
		return len(tail) < 3 && isHex(tail[1:])
	}
	return false
}

func escapePrefix(rest string) bool {
	switch {
	case rest[0] == 'u' || rest[0] == 'U':
		return len(rest) < 5 && isHex(rest[1:])
	case rest[0] == 'x' || rest[0] == 'X':
		return len(rest) < 3 && isHex(rest[1:])
	}
	return false
}

func referencePrefix(rest string) bool {
	if rest == "" {
		return true
	}
	if rest[0] == '#' {
		digits := rest[1:]
		if digits != "" && (digits[0] == 'x' || digits[0] == 'X') {
			return isHex(digits[1:])
		}
		return strings.Trim(digits, "0123456789") == ""
	}
	for name := range namedReferences {
		if len(rest) < len(name) && strings.HasPrefix(name, strings.ToLower(rest)) {
			return true
		}
	}
	return false
}

func isHex(s string) bool {
	return strings.Trim(s, "0123456789abcdefABCDEF") == ""
}
