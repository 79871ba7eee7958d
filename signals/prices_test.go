package signals_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

func TestPricesCostBillsCacheReadsWritesAndUncachedTokensApart(t *testing.T) {
	// Anthropic's claude-sonnet list: input 3, output 15, reads 0.1×, writes 1.25×.
	anthropic := signals.Prices{Input: 3, Output: 15, Cached: 0.3, CacheWrite: 3.75}
	for _, tt := range []struct {
		name   string
		prices signals.Prices
		usage  eventlog.Usage
		want   float64
	}{
		{"uncached only", anthropic, eventlog.Usage{InputTokens: 1e6, OutputTokens: 1e6}, 3 + 15},
		{"reads, writes and the uncached rest", anthropic,
			eventlog.Usage{InputTokens: 10e6, CachedTokens: 6e6, CacheWriteTokens: 3e6, OutputTokens: 1e6},
			1*3 + 6*0.3 + 3*3.75 + 15},
		{"a write without its price is priced as input", signals.Prices{Input: 2, Cached: 0.5},
			eventlog.Usage{InputTokens: 4e6, CachedTokens: 2e6, CacheWriteTokens: 1e6}, 1*2 + 2*0.5 + 1*2},
		{"a read without its price costs nothing, as before", signals.Prices{Input: 2},
			eventlog.Usage{InputTokens: 4e6, CachedTokens: 3e6}, 1 * 2},
		{"counts past the input bill no negative uncached rest", anthropic,
			eventlog.Usage{InputTokens: 1e6, CachedTokens: 1e6, CacheWriteTokens: 1e6}, 0.3 + 3.75},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.InDelta(t, tt.want, tt.prices.Cost(tt.usage), 1e-9)
		})
	}
}

// A usage recorded before cache writes were counted (no cache_write_tokens)
// costs what it cost then, whatever the new price says.
func TestPricesCostOfAUsageWithoutCacheWritesIsUnchanged(t *testing.T) {
	old := eventlog.Usage{InputTokens: 5000, OutputTokens: 700, CachedTokens: 3000}
	before := (2000*3.0 + 3000*0.3 + 700*15.0) / 1e6 // the cost formula without writes
	for _, write := range []float64{0, 3.75, 100} {
		p := signals.Prices{Input: 3, Output: 15, Cached: 0.3, CacheWrite: write}
		require.InDelta(t, before, p.Cost(old), 1e-12)
	}
}

func TestUsageAddSumsCacheWrites(t *testing.T) {
	a := eventlog.Usage{InputTokens: 10, OutputTokens: 1, CachedTokens: 4, CacheWriteTokens: 5}
	b := eventlog.Usage{InputTokens: 20, OutputTokens: 2, CachedTokens: 8, CacheWriteTokens: 3}
	require.Equal(t, eventlog.Usage{InputTokens: 30, OutputTokens: 3, CachedTokens: 12, CacheWriteTokens: 8}, a.Add(b))
}
