package signals

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A client in another language writes durations as strings ("2s",
// "1h30m") or as numbers of nanoseconds; both read as the same options,
// and what Go writes reads back as it was.
func TestDurationsReadAsStringsOrNanoseconds(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		want       AgentOptions
	}{
		{"strings", `{"retry":{"initial":"2s","max":"1h30m","max_retries":3},
			"approval":{"tools":["x"],"timeout":"90s","answer_timeout":"1m"},"wait":{"max":"36h","interruptible":true}}`,
			AgentOptions{Retry: &RetryPolicy{Initial: 2 * time.Second, Max: 90 * time.Minute, MaxRetries: 3},
				Approval: &ApprovalPolicy{Tools: []string{"x"}, Timeout: 90 * time.Second, AnswerTimeout: time.Minute},
				Wait:     &WaitPolicy{Max: 36 * time.Hour, Interruptible: true}}},
		{"nanoseconds", `{"retry":{"initial":2000000000,"max":2e9},"wait":{"max":1000}}`,
			AgentOptions{Retry: &RetryPolicy{Initial: 2 * time.Second, Max: 2 * time.Second},
				Wait: &WaitPolicy{Max: time.Microsecond}}},
		{"absent and null", `{"retry":{"initial":null,"multiplier":2},"approval":{},"wait":{"interruptible":true}}`,
			AgentOptions{Retry: &RetryPolicy{Multiplier: 2}, Approval: &ApprovalPolicy{}, Wait: &WaitPolicy{Interruptible: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got AgentOptions
			require.NoError(t, json.Unmarshal([]byte(tc.json), &got))
			require.Equal(t, tc.want, got)

			again, err := json.Marshal(got)
			require.NoError(t, err)
			var back AgentOptions
			require.NoError(t, json.Unmarshal(again, &back))
			require.Equal(t, got, back, "what Go writes (%s) reads back", again)
		})
	}
}

// Go writes durations as it always did, so recorded inputs do not change.
func TestDurationsAreWrittenAsNanoseconds(t *testing.T) {
	b, err := json.Marshal(RetryPolicy{Initial: 2 * time.Second})
	require.NoError(t, err)
	require.JSONEq(t, `{"initial":2000000000}`, string(b))
}

// A malformed duration is an invalid option that names its field and
// says which forms are accepted.
func TestAMalformedDurationNamesItsField(t *testing.T) {
	for _, tc := range []struct{ json, field string }{
		{`{"retry":{"initial":"2 parsecs"}}`, "retry.initial"},
		{`{"retry":{"max":1.5}}`, "retry.max"},
		{`{"approval":{"answer_timeout":true}}`, "approval.answer_timeout"},
		{`{"wait":{"max":"soon"}}`, "wait.max"},
		{`{"retry":{"max_retries":"3"}}`, "retry"},
	} {
		var o AgentOptions
		err := json.Unmarshal([]byte(tc.json), &o)
		require.ErrorIs(t, err, ErrInvalidOptions, tc.json)
		require.Contains(t, err.Error(), tc.field+": ", tc.json)
		if tc.field != "retry" {
			require.Contains(t, err.Error(), `a string such as "2s" or "1h30m"`)
		}
	}
}
