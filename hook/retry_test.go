package hook

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

func TestBackoffGrowsExponentiallyCapsAndHonoursRetryAfter(t *testing.T) {
	p := signals.RetryPolicy{Initial: time.Second, Max: 10 * time.Second, Multiplier: 2}
	cases := []struct {
		n          int
		retryAfter time.Duration
		want       time.Duration
	}{
		{0, 0, time.Second},
		{1, 0, 2 * time.Second},
		{3, 0, 8 * time.Second},
		{4, 0, 10 * time.Second},
		{40, 0, 10 * time.Second},
		{0, 30 * time.Second, 30 * time.Second},
		{3, time.Second, 8 * time.Second},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, Backoff(p, tc.n, tc.retryAfter), "n=%d retry-after=%s", tc.n, tc.retryAfter)
	}
}

func TestDefaultPolicyRetriesTransientKindsOnly(t *testing.T) {
	p := policy(nil)
	require.Equal(t, DefaultMaxRetries, p.MaxRetries)
	require.ElementsMatch(t, []eventlog.FailureKind{
		eventlog.FailureRateLimit, eventlog.FailureOverloaded, eventlog.FailureServer,
		eventlog.FailureNetwork, eventlog.FailureTimeout,
	}, p.Kinds)
}
