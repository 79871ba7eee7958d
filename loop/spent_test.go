package loop

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// A child's report adds every kind of token it spent since its last one,
// cache writes too: they are priced apart (signals.Prices.CacheWrite), so
// a parent that dropped them would under-count the tree's cost.
func TestAReportAddsEveryKindOfTokenTheChildSpentSinceTheLast(t *testing.T) {
	before := eventlog.Usage{InputTokens: 100, OutputTokens: 10, CachedTokens: 40, CacheWriteTokens: 50}
	now := eventlog.Usage{InputTokens: 300, OutputTokens: 30, CachedTokens: 140, CacheWriteTokens: 120}
	got := spentSince(before, now)
	require.Equal(t, eventlog.Usage{InputTokens: 200, OutputTokens: 20, CachedTokens: 100, CacheWriteTokens: 70}, got)

	prices := signals.Prices{Input: 3, Output: 15, Cached: 0.3, CacheWrite: 3.75}
	require.InDelta(t, prices.Cost(now)-prices.Cost(before), prices.Cost(got), 1e-12,
		"the report's cost is what the child's total cost grew by")
	require.Equal(t, eventlog.Usage{}, spentSince(now, before), "a report never takes back")
}
