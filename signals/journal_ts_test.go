package signals

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
)

// The TypeScript client folds histories itself (clients/typescript's
// history.ts), with its own copy of the journal's short tags and packed
// fields. A tag or field added here and not there would make it refuse, or
// misread, every history that holds the event.
func TestTheTypeScriptFoldKnowsTheJournalsTagsAndFields(t *testing.T) {
	src, err := os.ReadFile("../clients/typescript/src/history.ts")
	require.NoError(t, err)
	block := func(name string) string {
		t.Helper()
		_, rest, ok := strings.Cut(string(src), "const "+name+": ")
		require.True(t, ok, "history.ts declares %s", name)
		body, _, ok := strings.Cut(rest, "\n};")
		require.True(t, ok)
		return body
	}

	tags := map[string]eventlog.Type{}
	for _, m := range regexp.MustCompile(`\b([a-z]{2}): '([a-z/]+)'`).FindAllStringSubmatch(block("journalTypes"), -1) {
		tags[m[1]] = eventlog.Type(m[2])
	}
	require.Equal(t, journalTypes, tags, "history.ts's journalTypes must be signals' journal codes")

	fields := map[eventlog.Type][]string{}
	entry := regexp.MustCompile(`'?([a-z/]+)'?: \[([^\]]*)\]`)
	for _, m := range entry.FindAllStringSubmatch(block("journalFields"), -1) {
		var names []string
		for _, f := range regexp.MustCompile(`'([a-z_]+)'`).FindAllStringSubmatch(m[2], -1) {
			names = append(names, f[1])
		}
		fields[eventlog.Type(m[1])] = names
	}
	require.Equal(t, journalFields, fields, "history.ts's journalFields must be signals' packed fields")
}
