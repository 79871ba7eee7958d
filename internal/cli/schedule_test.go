package cli

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestAtAndInFlagsSetWhenAMessageIsDelivered(t *testing.T) {
	now := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		at    string
		in    time.Duration
		want  time.Time
		usage bool
	}{
		{"neither: now", "", 0, time.Time{}, false},
		{"at", "2026-12-01T10:00:00Z", 0, time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), false},
		{"at with an offset", "2026-12-01T11:00:00+01:00", 0, time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), false},
		{"in", "", 90 * time.Minute, now.Add(90 * time.Minute), false},
		{"both", "2026-12-01T10:00:00Z", time.Hour, time.Time{}, true},
		{"not a time", "tomorrow", 0, time.Time{}, true},
		{"negative", "", -time.Minute, time.Time{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := deliveryTime("followup", tc.at, tc.in, now)
			if tc.usage {
				require.ErrorIs(t, err, ErrUsage)
				return
			}
			require.NoError(t, err)
			require.True(t, tc.want.Equal(got), "got %s", got)
		})
	}
}
