package agent

import (
	"fmt"
	"strings"

	"github.com/tetherdev/tether/internal/text"
)

// A transcript shows at most this much of a tool result: enough to see
// what a tool returned, short enough that a file read does not bury the
// conversation.
const (
	PreviewLines = 5
	PreviewBytes = 300
)

// Preview returns content as a transcript shows it: whole when it is short,
// else its first PreviewLines lines (at most PreviewBytes, cut on a rune
// boundary) and a last line saying how much is left out and how to see
// agent id's full text.
func Preview(content, id string) string {
	size := len(content)
	content = strings.TrimRight(content, "\n")
	head := firstLines(content, PreviewLines)
	if len(head) > PreviewBytes {
		head = text.Cut(head, PreviewBytes)
	}
	if len(head) == len(content) {
		return content
	}
	if content[len(head)] != '\n' {
		head += "…" // cut inside a line
	}
	more := strings.Count(content, "\n") - strings.Count(head, "\n")
	return fmt.Sprintf("%s\n… (%s%d bytes in all; full text: %s)", head, moreLines(more), size, fullText(id))
}

// firstLines returns text up to the end of its n-th line, without the
// line break.
func firstLines(text string, n int) string {
	end := 0
	for range n {
		i := strings.IndexByte(text[end:], '\n')
		if i < 0 {
			return text
		}
		end += i + 1
	}
	return text[:end-1]
}

func moreLines(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return "1 more line, "
	}
	return fmt.Sprintf("%d more lines, ", n)
}

func fullText(id string) string {
	if id == "" {
		return "the session log"
	}
	return "starter log --json " + id
}
