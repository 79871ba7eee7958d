package cli

import (
	"slices"
	"strings"
)

// messageCommands share their notes in Usage.
var messageCommands = []string{"followup", "steer", "inject"}

// commandUsage is the part of Usage that documents command (the messages'
// shared notes and where a MESSAGE comes from for each of them), then the
// connection flags.
func commandUsage(command string) string {
	names := []string{command}
	if slices.Contains(messageCommands, command) {
		names = messageCommands
	}
	if command == "start" || slices.Contains(messageCommands, command) {
		names = append(names, "MESSAGE")
	}
	var b strings.Builder
	b.WriteString("usage: starter [connection flags] COMMAND [flags] ARGS\n\n")
	for _, name := range names {
		b.WriteString(usageBlock(name))
	}
	b.WriteString("\n" + Usage[strings.Index(Usage, "connection flags ("):])
	return b.String()
}

// usageBlock is command's lines of Usage: its own line and the more deeply
// indented ones under it.
func usageBlock(command string) string {
	var b strings.Builder
	in := false
	for line := range strings.Lines(Usage) {
		switch {
		case strings.HasPrefix(line, "  "+command+" ") || strings.TrimRight(line, "\n") == "  "+command:
			in = true
		case !strings.HasPrefix(line, "   "):
			in = false
		}
		if in {
			b.WriteString(line)
		}
	}
	return b.String()
}
