package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

func TestAtRefusesATimeTooFarAheadBeforeSending(t *testing.T) {
	h := &agent.Handle{ID: "a"} // no client: nothing may be sent
	far := agent.At(time.Now().Add(signals.MaxScheduleAhead + time.Hour))
	ctx := context.Background()
	for name, op := range map[string]func(context.Context, string, ...agent.SendOption) (signals.Ack, error){
		"followup": h.Followup, "steer": h.Steer, "inject": h.Inject,
		"send": func(ctx context.Context, c string, o ...agent.SendOption) (signals.Ack, error) {
			return h.Send(ctx, c, eventlog.NextStep, true, o...)
		},
	} {
		for _, ack := range []bool{false, true} {
			opts := []agent.SendOption{far}
			if ack {
				opts = append(opts, agent.Acknowledged())
			}
			_, err := op(ctx, "hi", opts...)
			require.ErrorIs(t, err, signals.ErrScheduleTooFar, name)
		}
	}
}
