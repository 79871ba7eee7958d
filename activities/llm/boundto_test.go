package llm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
)

// BoundTo's cap replaces MaxReplyBytes: a reply over the default but
// within the cap is kept whole, and one over the cap is cut to it with a
// notice naming the cap.
func TestBoundToKeepsARepliesUpToItsCap(t *testing.T) {
	text := strings.Repeat("a", 3<<20/2) // 1.5 MiB
	m := eventlog.AssistantMessage{Text: text}
	require.Contains(t, Bound(m).Text, "[reply cut:", "the default cap is 1 MiB")
	require.Equal(t, text, BoundTo(m, 2<<20).Text, "within a 2 MiB cap: whole")
	require.Equal(t, Bound(m), BoundTo(m, 0), "0 is the default")

	cut := BoundTo(m, 512<<10)
	require.Contains(t, cut.Text, "a reply may be at most 524288 bytes]")
	b, err := json.Marshal(cut)
	require.NoError(t, err)
	require.LessOrEqual(t, len(b), 512<<10)
}
