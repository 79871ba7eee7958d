package activities

import (
	"math"
	"strings"
	"unicode"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/internal/text"
	"github.com/tetherdev/tether/signals"
)

// Bounds of a call's progress in its heartbeat details, which Temporal
// keeps with the pending activity and `starter status` prints: one short
// line the tool (an MCP server) chose, never more.
const (
	// MaxProgressMessage bounds a progress message, in bytes.
	MaxProgressMessage = 160
	// maxProgressTool bounds the tool's name beside it.
	maxProgressTool = 128
)

// progressOf is p as a heartbeat carries it (attemptRecord.Progress, the
// wire form signals.ToolProgress): numbers finite (JSON has no NaN), the
// message one line of at most MaxProgressMessage bytes.
func progressOf(tool string, attempt int32, p tools.Progress) *signals.ToolProgress {
	return &signals.ToolProgress{
		Tool: oneLine(tool, maxProgressTool), Attempt: attempt,
		Progress: finite(p.Progress), Total: finite(p.Total), Message: oneLine(p.Message, MaxProgressMessage),
	}
}

func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// oneLine is s on one line, cut to at most limit bytes: invalid UTF-8,
// control, line-breaking and bidirectional-override characters become
// spaces, runs of spaces one space, and a cut ends in "…" on a rune
// boundary.
func oneLine(s string, limit int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp, unicode.Bidi_Control) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, " "))
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= limit {
		return s
	}
	const ellipsis = "…"
	return text.Cut(s, limit-len(ellipsis)) + ellipsis
}
