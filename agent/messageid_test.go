package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

func TestWithMessageIDRefusesMalformedIDsBeforeSending(t *testing.T) {
	h := &agent.Handle{ID: "a"} // no client: nothing may be sent
	for _, id := range []eventlog.MessageID{
		eventlog.MessageID(strings.Repeat("x", signals.MaxIDBytes+1)),
		"has space", "tab\there", "naïve", "made:1.1", "\x00",
	} {
		for _, ack := range []bool{false, true} {
			opts := []agent.SendOption{agent.WithMessageID(id)}
			if ack {
				opts = append(opts, agent.Acknowledged())
			}
			_, err := h.Followup(context.Background(), "hi", opts...)
			require.ErrorIs(t, err, signals.ErrInvalidID, "%q", id)
			_, err = h.Send(context.Background(), "hi", eventlog.NextTurn, true, opts...)
			require.ErrorIs(t, err, signals.ErrInvalidID, "%q", id)
		}
	}
}

func TestWithMessageIDDocumentsTheLoopsDedupeWindow(t *testing.T) {
	require.Equal(t, 1024, loop.MaxRecentIDs, "WithMessageID's doc names the window")
}
