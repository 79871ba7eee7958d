package cli

import (
	"fmt"

	"github.com/tetherdev/tether/signals"
)

// AgentIDChars says what an agent ID the starter creates may hold (and
// agentIDRune checks): nothing else, so an ID needs no quoting in a URL
// path (the console, the Web UI), a visibility query or a shell, and
// cannot be confused with the "#" of a child's report ID.
const AgentIDChars = "ASCII letters, digits, '.', '_', '-' and ':'"

// CheckAgentID refuses an agent ID outside AgentIDChars or over
// signals.MaxIDBytes, in one sentence.
func CheckAgentID(id string) error {
	if len(id) > signals.MaxIDBytes {
		return fmt.Errorf("%q is %d bytes: at most %d", id, len(id), signals.MaxIDBytes)
	}
	for _, r := range id {
		if !agentIDRune(r) {
			return fmt.Errorf("%q holds %q: an agent ID is %s only", id, r, AgentIDChars)
		}
	}
	return nil
}

func agentIDRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' || r == ':'
}
