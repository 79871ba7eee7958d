package console

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEveryPageTemplateParses(t *testing.T) {
	set, err := parseTemplates()
	require.NoError(t, err)
	for _, p := range pages {
		require.NotNil(t, set.byPage[p].Lookup("layout"), p)
		require.NotNil(t, set.byPage[p].Lookup("content"), p)
	}
	for _, partial := range []string{"block", "step", "item", "call", "status", "actions", "usage", "strip"} {
		require.NotNil(t, set.partial.Lookup(partial), partial)
	}
}

func TestNumbersAndDurationsReadAsPeopleWriteThem(t *testing.T) {
	require.Equal(t, "1,234,567", num(int64(1234567)))
	require.Equal(t, "-1,000", num(-1000))
	require.Equal(t, "999", num(999))
	require.Equal(t, "420 ms", millis(420))
	require.Equal(t, "1.5 s", millis(1500))
	require.InDelta(t, 100.0, pct(60_000), 1e-9)
	require.Zero(t, pct(0))
	require.Less(t, pct(100), pct(1000))
}
