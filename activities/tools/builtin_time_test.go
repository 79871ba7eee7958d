package tools

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCurrentTimeReportsTimeAndWeekdayInZone(t *testing.T) {
	fixed := time.Date(2024, 3, 1, 23, 30, 0, 0, time.UTC) // a Friday in UTC
	r, err := NewRegistry(CurrentTime(func() time.Time { return fixed }))
	require.NoError(t, err)
	tests := []struct {
		name string
		args string
		want Result
	}{
		{"default UTC", `{}`, Result{Content: "2024-03-01T23:30:00Z (Friday, UTC)"}},
		{"no arguments", ``, Result{Content: "2024-03-01T23:30:00Z (Friday, UTC)"}},
		{"zone crosses midnight", `{"timezone":"Europe/Berlin"}`, Result{Content: "2024-03-02T00:30:00+01:00 (Saturday, Europe/Berlin)"}},
		{"negative offset", `{"timezone":"America/New_York"}`, Result{Content: "2024-03-01T18:30:00-05:00 (Friday, America/New_York)"}},
		{"unknown zone", `{"timezone":"Mars/Olympus"}`, Result{IsError: true, Content: `unknown time zone "Mars/Olympus": use an IANA name such as "Europe/Berlin"`}},
		{"worker local zone refused", `{"timezone":"Local"}`, Result{IsError: true, Content: `unknown time zone "Local": use an IANA name such as "Europe/Berlin"`}},
		{"path-like zone", `{"timezone":"../../etc/passwd"}`, Result{IsError: true, Content: `unknown time zone "../../etc/passwd": use an IANA name such as "Europe/Berlin"`}},
		{"unknown field", `{"tz":"UTC"}`, Result{IsError: true, Content: `invalid arguments for tool "current_time": unknown field "tz" (allowed: timezone)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Execute(context.Background(), Call{Name: "current_time", Arguments: json.RawMessage(tt.args)})
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestCurrentTimeDefaultsToWallClock(t *testing.T) {
	tool := CurrentTime(nil)
	got, err := tool.Run(context.Background(), Call{Name: tool.Name, Arguments: json.RawMessage(`{}`)})
	require.NoError(t, err)
	require.Contains(t, got.Content, "UTC")
}
