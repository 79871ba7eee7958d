package workflows

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// snapshots records what the workflow publishes.
type snapshots struct {
	mu     sync.Mutex
	log    []eventlog.Envelope
	forgot int
	gaps   int
}

func (s *snapshots) Publish(_, _ string, page signals.LogPage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if first := page.Next - int64(len(page.Events)); first != int64(len(s.log)) {
		s.gaps++
	}
	s.log = append(s.log, page.Events...)
}

func (s *snapshots) Forget(string, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forgot++
}

func (s *snapshots) len() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return int64(len(s.log))
}

func TestEveryActivityFindsItsLogPrefixPublishedBeforeItRuns(t *testing.T) {
	snap := &snapshots{}
	var uptos []int64
	var published []int64
	h := newHarnessWith(t, Config{Snapshots: snap}, func(in signals.ModelInput) (signals.ModelOutput, error) {
		uptos, published = append(uptos, in.Ref.Upto), append(published, snap.len())
		if in.Call.Step == 1 {
			return calls("fast"), nil
		}
		return answer("done"), nil
	})
	h.tool("fast", time.Second)
	h.signal(time.Minute, signals.FollowupSignal.Name, signals.Message{ID: "m1", Content: "again"})
	evs := h.run(tools, "go", time.Hour)

	require.Len(t, uptos, 4)
	for i := range uptos {
		require.GreaterOrEqual(t, published[i], uptos[i], "model call %d", i)
	}
	require.Zero(t, snap.gaps, "pages follow on from the first")
	require.Equal(t, 1, snap.forgot, "the ended run is forgotten")
	require.Len(t, snap.log, len(evs), "the whole log, each event once")
	for i, env := range snap.log {
		require.EqualValues(t, i, env.Seq)
	}
}
