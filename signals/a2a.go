package signals

import (
	"fmt"
	"slices"
	"strings"
)

// Remote A2A agents as tools. A worker offers each remote agent its A2A
// config file names (--a2a-config) as a tool; an agent enables one by
// listing "a2a:<name>" among its tools, and the model calls it as
// A2AToolName(name), "a2a__<name>" (loop rules 9 on; see loop.RulesA2A).

// A2APrefix starts a tool entry that enables a remote A2A agent.
const A2APrefix = "a2a:"

// MaxA2AName bounds a remote agent's name: the tool's name, with its
// "a2a__" prefix, stays within what providers accept.
const MaxA2AName = 32

// A2AToolName is the name the model calls remote agent name by.
func A2AToolName(name string) string { return "a2a" + mcpToolNameSeparator + name }

// ParseA2AEntry reads an "a2a:<name>" tool entry; ok is false for other
// tools.
func ParseA2AEntry(entry string) (name string, ok bool) {
	return strings.CutPrefix(entry, A2APrefix)
}

// ValidA2AName reports whether name may name a remote A2A agent: 1 to 32
// of [a-zA-Z0-9_-] without "__", like an MCP server.
func ValidA2AName(name string) bool {
	return name != "" && len(name) <= MaxA2AName && strings.Trim(name, mcpToolNameCharacters) == "" &&
		!strings.Contains(name, mcpToolNameSeparator)
}

// validA2AEntry checks an "a2a:" tool entry; known, when not nil, lists
// the worker's tools, where a configured agent appears as "a2a:<name>".
func validA2AEntry(entry string, known []string) error {
	name, _ := ParseA2AEntry(entry)
	switch {
	case !ValidA2AName(name):
		return fmt.Errorf("A2A tool entry %q: a remote agent's name is 1 to %d of [a-zA-Z0-9_-] without \"__\"", entry, MaxA2AName)
	case known != nil && !slices.Contains(known, entry):
		return fmt.Errorf("A2A agent %q is not configured on this worker (--a2a-config)", name)
	}
	return nil
}
