package signals

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// The durable ID formats are history: these strings must never change.
func TestDurableIDFormats(t *testing.T) {
	require.Equal(t, "model-3-2", ModelActivityID(3, 2))
	require.Equal(t, "tool-3-2-0", ToolActivityID(3, 2, 0))
	require.Equal(t, "compact-41", SummaryActivityID(41))
	require.Equal(t, "support-42/3/2/call_7", IdempotencyKey("support-42", 3, 2, "call_7"))
	require.Equal(t, "made:3.12", string(MadeMessageID(3, 12)))
	require.True(t, IsMade(MadeMessageID(1, 1)))
	require.False(t, IsMade("m1"))
	require.Equal(t, "openai/gpt-4o", ModelLabel(Selection{Provider: "openai", Model: "gpt-4o"}))
	require.Equal(t, "default/default", ModelLabel(Selection{}))
}

func TestParseModelActivityIDReadsOnlyItsOwnFormat(t *testing.T) {
	turn, step, ok := ParseModelActivityID(ModelActivityID(12, 3))
	require.True(t, ok)
	require.Equal(t, []int{12, 3}, []int{turn, step})
	for _, bad := range []string{"tool-1-1-0", "model-1", "model-a-1", "model-0-1", "model-1-1-1", "compact-9", ""} {
		_, _, ok := ParseModelActivityID(bad)
		require.False(t, ok, bad)
	}
}

func TestBoundCauseCutsAtARuneBoundary(t *testing.T) {
	require.Equal(t, "short", BoundCause("short"))
	long := BoundCause(strings.Repeat("é", MaxCauseBytes))
	require.LessOrEqual(t, len(long), MaxCauseBytes)
	require.True(t, utf8.ValidString(long))
	require.True(t, strings.HasSuffix(long, "…"))
}
