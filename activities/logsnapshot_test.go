package activities_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// published is the page the workflow publishes with events [from, to) of
// log when it holds to events: what loop.Page answers.
func published(log []eventlog.Envelope, from, to int64) signals.LogPage {
	return signals.LogPage{Events: append([]eventlog.Envelope{}, log[from:to]...), Next: to, Len: to}
}

func TestLogReaderFoldsPublishedEventsWithoutQuerying(t *testing.T) {
	q := newQuerier(t, "a")
	r := activities.NewLogReader(q, 0)
	log := q.logs["a"]
	ctx := context.Background()

	r.Publish("a", "run-a", published(log, 0, 8))
	got, err := r.Conversation(ctx, ref("a", 8))
	require.NoError(t, err)
	require.Equal(t, eventlog.ConversationOf(testLog[:8]), got)
	r.Publish("a", "run-a", published(log, 8, 13))
	call, err := r.ToolCall(ctx, ref("a", 13), 12, "call_2_1")
	require.NoError(t, err)
	require.JSONEq(t, `{"expression":"17*23"}`, string(call.Arguments))
	r.Publish("a", "run-a", published(log, 13, 19))
	got, err = r.Conversation(ctx, ref("a", 19))
	require.NoError(t, err)
	require.Equal(t, eventlog.ConversationOf(testLog), got)
	require.Empty(t, q.taken(), "every event came from the snapshot")
}

func TestLogReaderQueriesWhatTheSnapshotLacks(t *testing.T) {
	tests := []struct {
		name    string
		publish func(r *activities.LogReader, log []eventlog.Envelope)
		want    []query
	}{
		{"nothing published: another worker runs the workflow", func(*activities.LogReader, []eventlog.Envelope) {}, pages("a", 0, 10)},
		{"published only up to 6", func(r *activities.LogReader, log []eventlog.Envelope) {
			r.Publish("a", "run-a", published(log, 0, 6))
		}, pages("a", 6, 10)},
		{"published from 6 only (the entry was evicted meanwhile)", func(r *activities.LogReader, log []eventlog.Envelope) {
			r.Publish("a", "run-a", signals.LogPage{Events: log[6:10], Next: 10, Len: 10})
		}, pages("a", 0, 6)},
		{"published, then forgotten: the workflow left this worker", func(r *activities.LogReader, log []eventlog.Envelope) {
			r.Publish("a", "run-a", published(log, 0, 10))
			r.Forget("a", "run-a")
		}, pages("a", 0, 10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newQuerier(t, "a")
			r := activities.NewLogReader(q, 0)
			tt.publish(r, q.logs["a"])
			got, err := r.Conversation(context.Background(), ref("a", 10))
			require.NoError(t, err)
			require.Equal(t, eventlog.ConversationOf(testLog[:10]), got)
			require.Equal(t, tt.want, q.taken())
		})
	}
}

func TestLogReaderTakesANewInstancesLogOverWhatTheLastOnePublished(t *testing.T) {
	q := newQuerier(t, "a")
	r := activities.NewLogReader(q, 0)
	log := q.logs["a"]
	stale := encodeLog(t, []eventlog.Event{eventlog.UserMessage{MessageID: "x", Content: "never committed"}})
	r.Publish("a", "run-a", published(log, 0, 5))
	r.Publish("a", "run-a", signals.LogPage{Events: []eventlog.Envelope{{Seq: 5, At: stale[0].At, Type: stale[0].Type, Data: stale[0].Data}}, Next: 6, Len: 6})
	// The worker evicted that instance without Forget reaching us; a new
	// one replays the run and publishes it from the start.
	r.Publish("a", "run-a", published(log, 0, 10))
	got, err := r.Conversation(context.Background(), ref("a", 10))
	require.NoError(t, err)
	require.Equal(t, eventlog.ConversationOf(testLog[:10]), got)
	require.Empty(t, q.taken())
}

func TestLogReaderStartsAContinuedRunFromThePublishedSeedContext(t *testing.T) {
	q := newQuerier(t)
	r := activities.NewLogReader(q, 0)
	full := encodeLog(t, testLog)
	var conv eventlog.Conversation
	for _, e := range testLog[:12] {
		conv.Apply(e)
	}
	seed := conv.Snapshot()
	r.Publish("a", "run-2", signals.LogPage{Events: append([]eventlog.Envelope{}, full[12:16]...), Next: 16, Len: 16, Base: 12, Context: &seed})
	got, err := r.Conversation(context.Background(), signals.LogRef{AgentID: "a", RunID: "run-2", Upto: 16})
	require.NoError(t, err)
	require.Equal(t, eventlog.ConversationOf(testLog[:16]), got)
	require.Empty(t, q.taken())
}

func TestPublishNeverWaitsForAReaderInAQuery(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{})
	q := newQuerier(t, "a")
	q.fail = func(n int) error {
		if n == 0 {
			close(entered)
			<-release
		}
		return nil
	}
	r := activities.NewLogReader(q, 0)
	log := q.logs["a"]
	done := make(chan error, 1)
	go func() { _, err := r.Conversation(context.Background(), ref("a", 4)); done <- err }()
	<-entered // the reader holds the run's fold while its query waits
	returned := make(chan struct{})
	go func() { r.Publish("a", "run-a", published(log, 0, 10)); r.Forget("a", "run-a"); close(returned) }()
	select {
	case <-returned:
	case <-time.After(5 * time.Second):
		t.Fatal("Publish waited for the reader")
	}
	close(release)
	require.NoError(t, <-done)
}

func TestLogReaderBoundsARunsSnapshotByItsBudget(t *testing.T) {
	q := newQuerier(t, "a")
	log := q.logs["a"]
	perRun := int64(0)
	for _, env := range log {
		perRun += int64(len(env.Data)) + 96
	}
	r := activities.NewLogReader(q, 8*perRun/2) // a run may hold half its log
	r.Publish("a", "run-a", published(log, 0, int64(len(log))))
	require.LessOrEqual(t, r.CacheBytes(), 1<<10+perRun/2)
	got, err := r.Conversation(context.Background(), ref("a", int64(len(log))))
	require.NoError(t, err)
	require.Equal(t, eventlog.ConversationOf(testLog), got)
	taken := q.taken()
	require.NotEmpty(t, taken, "the oldest events fell out and were queried")
	last := taken[len(taken)-1].req
	require.Less(t, last.To, int64(len(log)), "the newest came from the snapshot")
}
