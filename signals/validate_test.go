package signals_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

func TestValidateMessageAtItsLimits(t *testing.T) {
	tests := []struct {
		name string
		m    signals.Message
		want error
	}{
		{"ordinary", signals.Message{ID: "m1", Content: "hello"}, nil},
		{"largest content", signals.Message{ID: "m1", Content: strings.Repeat("a", signals.MaxMessageBytes)}, nil},
		{"content one byte over", signals.Message{ID: "m1", Content: strings.Repeat("a", signals.MaxMessageBytes+1)}, signals.ErrMessageTooLarge},
		{"empty content", signals.Message{ID: "m1"}, signals.ErrEmptyMessage},
		{"blank content", signals.Message{ID: "m1", Content: " \n\t"}, signals.ErrEmptyMessage},
		{"invalid UTF-8", signals.Message{ID: "m1", Content: "a\xffb"}, signals.ErrInvalidUTF8},
		{"longest id", signals.Message{ID: eventlog.MessageID(strings.Repeat("k", signals.MaxIDBytes)), Content: "x"}, nil},
		{"id one byte over", signals.Message{ID: eventlog.MessageID(strings.Repeat("k", signals.MaxIDBytes+1)), Content: "x"}, signals.ErrInvalidID},
		{"empty id", signals.Message{Content: "x"}, signals.ErrInvalidID},
		{"id with a space", signals.Message{ID: "a b", Content: "x"}, signals.ErrInvalidID},
		{"id outside ASCII", signals.Message{ID: "naïve", Content: "x"}, signals.ErrInvalidID},
		{"id in the hook namespace", signals.Message{ID: "made:1.1", Content: "x"}, signals.ErrInvalidID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := signals.ValidateMessage(tt.m)
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tt.want)
		})
	}
}

func TestBoundCauseKeepsCausesWithinTheirLimitOnARuneBoundary(t *testing.T) {
	for _, cause := range []string{"", "short", strings.Repeat("x", signals.MaxCauseBytes),
		strings.Repeat("x", signals.MaxCauseBytes+1), strings.Repeat("é", signals.MaxCauseBytes), strings.Repeat("😀", 1<<20)} {
		b := signals.BoundCause(cause)
		require.NoError(t, signals.ValidateCause(b))
		require.LessOrEqual(t, len(b), signals.MaxCauseBytes)
		if len(cause) <= signals.MaxCauseBytes {
			require.Equal(t, cause, b)
		} else {
			require.True(t, strings.HasSuffix(b, "…"))
			require.ErrorIs(t, signals.ValidateCause(cause), signals.ErrCauseTooLarge)
		}
	}
}
