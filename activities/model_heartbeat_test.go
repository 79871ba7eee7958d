package activities_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// beatingProvider notes how many heartbeats its activity had recorded when
// it was called, then answers once reached is closed (or after a minute).
type beatingProvider struct {
	beats   *atomic.Int32
	reached chan struct{}
	atCall  int32
}

func (p *beatingProvider) Complete(ctx context.Context, _ llm.Request) (eventlog.AssistantMessage, error) {
	p.atCall = p.beats.Load()
	select {
	case <-p.reached:
	case <-ctx.Done():
	case <-time.After(time.Minute):
	}
	return eventlog.AssistantMessage{Text: "ok", FinishReason: eventlog.FinishStop}, nil
}

// A model call with nothing to publish (no stream locator, no summary's
// failure count) records its first heartbeat at the loop's first tick, not
// before calling the provider: the SDK sends a first heartbeat at once and
// waits for the server's answer, a round trip before every call (3–13 ms a
// call in bench/README's turn latency). A call that outlasts a tick still
// heartbeats.
func TestAModelCallWithNothingToPublishCallsTheProviderBeforeAnyHeartbeat(t *testing.T) {
	for _, c := range []struct {
		name string
		wait int32
	}{{"short call", 0}, {"call outlasting a tick", 1}} {
		t.Run(c.name, func(t *testing.T) {
			var s testsuite.WorkflowTestSuite
			env := s.NewTestActivityEnvironment()
			beats, reached := &atomic.Int32{}, make(chan struct{})
			if c.wait == 0 {
				close(reached)
			}
			env.SetOnActivityHeartbeatListener(func(*activity.Info, converter.EncodedValues) {
				if beats.Add(1) == c.wait {
					close(reached)
				}
			})
			p := &beatingProvider{beats: beats, reached: reached}
			m := newModel(t, map[string]activities.Provider{"main": p}, &fakeConversation{msgs: testConversation})
			m.HeartbeatEvery = 5 * time.Millisecond
			env.RegisterActivity(m.Call)
			_, err := env.ExecuteActivity(m.Call, signals.ModelInput{Ref: signals.LogRef{Upto: 2}})
			require.NoError(t, err)
			require.Zero(t, p.atCall, "heartbeats recorded before the provider was called")
			require.GreaterOrEqual(t, beats.Load(), c.wait)
		})
	}
}
