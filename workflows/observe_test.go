package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// recordingObserver keeps every envelope it is shown, in order.
type recordingObserver struct {
	runs int
	seen []eventlog.Envelope
}

func (o *recordingObserver) Run(workflow.Context) RunObserver { o.runs++; return o }

func (o *recordingObserver) Recorded(_ workflow.Context, events []eventlog.Envelope) {
	o.seen = append(o.seen, events...)
}

// The observer is shown the whole session log, each event once and in
// order, whatever recorded it: the first message, steps, a signal's request.
func TestObserverSeesEverySessionEventOnceInOrder(t *testing.T) {
	obs := &recordingObserver{}
	h := newHarnessWith(t, Config{Observer: obs}, byStep(map[string]signals.ModelOutput{"1.1": calls("fast")}))
	h.tool("fast", time.Second)
	h.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "m1", Content: "again"})
	evs := h.run(signals.AgentOptions{Tools: []string{"fast"}}, "hello", time.Hour)

	require.Equal(t, 1, obs.runs)
	require.Len(t, obs.seen, len(evs))
	for i, env := range obs.seen {
		require.Equal(t, int64(i), env.Seq, "event %d", i)
		e, err := eventlog.Decode(env)
		require.NoError(t, err)
		require.Equal(t, evs[i], e)
	}
}
