package activities_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// pageSize is the fake querier's page bound: small, so every read pages.
const pageSize = 2

// query is one QueryLog call as the fake saw it.
type query struct {
	agentID, runID string
	req            signals.LogRequest
}

// fakeLogQuerier serves logs from memory, pageSize events at a time,
// honouring From, To and Limit like the agent workflow's log query.
type fakeLogQuerier struct {
	logs map[string][]eventlog.Envelope // by agentID
	// fail, when set, is asked before answering call n (0-based) and fails
	// it with the error it returns.
	fail func(n int) error

	mu    sync.Mutex
	calls []query
}

func (q *fakeLogQuerier) QueryLog(_ context.Context, agentID, runID string, req signals.LogRequest) (signals.LogPage, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.calls = append(q.calls, query{agentID: agentID, runID: runID, req: req})
	if q.fail != nil {
		if err := q.fail(len(q.calls) - 1); err != nil {
			return signals.LogPage{}, err
		}
	}
	log := q.logs[agentID]
	limit := pageSize
	if req.Limit > 0 && req.Limit < limit {
		limit = req.Limit
	}
	page := signals.LogPage{Events: []eventlog.Envelope{}, Len: int64(len(log))}
	page.Next = page.Len
	for _, env := range log {
		if env.Seq < req.From || (req.To > 0 && env.Seq >= req.To) {
			continue
		}
		if len(page.Events) == limit {
			page.Next = env.Seq
			break
		}
		page.Events = append(page.Events, env)
	}
	return page, nil
}

// taken returns the calls made since the last take.
func (q *fakeLogQuerier) taken() []query {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.calls
	q.calls = nil
	return out
}

// testLog is one turn with two tool steps and an answer, then a new prompt.
var testLog = []eventlog.Event{
	eventlog.StatusChanged{Status: eventlog.StatusRunning},                             // 0
	eventlog.InboxInserted{MessageID: "m1", List: eventlog.NextTurn, Wake: true},       // 1
	eventlog.InboxClaimed{MessageID: "m1", List: eventlog.NextTurn, Turn: 1},           // 2
	eventlog.TurnStart{Turn: 1},                                                        // 3
	eventlog.SystemMessage{Content: "be brief"},                                        // 4
	eventlog.UserMessage{MessageID: "m1", Content: "time, README.md and 17*23 please"}, // 5
	eventlog.StepStart{Turn: 1, Step: 1},                                               // 6
	eventlog.AssistantMessage{ // 7
		ToolCalls:    []eventlog.ToolCallRequest{{ID: "call_1_0", Name: "current_time", Arguments: []byte(`{}`)}},
		FinishReason: eventlog.FinishToolCalls,
	},
	eventlog.ToolCall{CallID: "call_1_0", Name: "current_time", IdempotencyKey: "a/1/1/call_1_0"}, // 8
	eventlog.ToolResult{CallID: "call_1_0", Name: "current_time", Content: "12:00"},               // 9
	eventlog.StepEnd{Turn: 1, Step: 1},   // 10
	eventlog.StepStart{Turn: 1, Step: 2}, // 11
	eventlog.AssistantMessage{ // 12
		ToolCalls: []eventlog.ToolCallRequest{
			{ID: "call_2_0", Name: "read_file", Arguments: []byte(`{"path":"README.md"}`)},
			{ID: "call_2_1", Name: "calculate", Arguments: []byte(`{"expression":"17*23"}`)},
		},
		FinishReason: eventlog.FinishToolCalls,
	},
	eventlog.ToolResult{CallID: "call_2_0", Name: "read_file", Content: "# Tether"},            // 13
	eventlog.ToolResult{CallID: "call_2_1", Name: "calculate", Content: "391"},                 // 14
	eventlog.StepEnd{Turn: 1, Step: 2},                                                         // 15
	eventlog.AssistantMessage{Text: "12:00, # Tether, 391", FinishReason: eventlog.FinishStop}, // 16
	eventlog.TurnEnd{Turn: 1, Reason: eventlog.EndCompleted},                                   // 17
	eventlog.UserMessage{MessageID: "m2", Content: "thanks"},                                   // 18
}

func encodeLog(t *testing.T, events []eventlog.Event) []eventlog.Envelope {
	t.Helper()
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	envs := make([]eventlog.Envelope, len(events))
	for i, e := range events {
		env, err := eventlog.Encode(int64(i), at.Add(time.Duration(i)*time.Second), "", e)
		require.NoError(t, err)
		envs[i] = env
	}
	return envs
}

func newQuerier(t *testing.T, agents ...string) *fakeLogQuerier {
	t.Helper()
	q := &fakeLogQuerier{logs: map[string][]eventlog.Envelope{}}
	for _, a := range agents {
		q.logs[a] = encodeLog(t, testLog)
	}
	return q
}

func ref(agent string, upto int64) signals.LogRef {
	return signals.LogRef{AgentID: agent, RunID: "run-" + agent, Upto: upto}
}

// pages lists the requests a cold read of [from, upto) makes of agent a.
func pages(a string, from, upto int64) []query {
	var out []query
	for f := from; f < upto; f += pageSize {
		out = append(out, query{agentID: a, runID: "run-" + a, req: signals.LogRequest{From: f, To: upto}})
	}
	return out
}

func TestLogReaderConversationFoldsLogUpToRef(t *testing.T) {
	for _, upto := range []int64{0, 1, 5, 6, 8, 12, 13, 17, int64(len(testLog))} {
		t.Run(fmt.Sprintf("upto %d", upto), func(t *testing.T) {
			q := newQuerier(t, "a")
			r := activities.NewLogReader(q, 0)

			got, err := r.Conversation(context.Background(), ref("a", upto))
			require.NoError(t, err)
			require.Equal(t, eventlog.ConversationOf(testLog[:upto]), got)
			require.Equal(t, pages("a", 0, upto), q.taken())
		})
	}
}

func TestLogReaderFetchesOnlyEventsItHasNotSeen(t *testing.T) {
	q := newQuerier(t, "a")
	r := activities.NewLogReader(q, 0)
	ctx := context.Background()

	_, err := r.Conversation(ctx, ref("a", 7))
	require.NoError(t, err)
	require.Equal(t, pages("a", 0, 7), q.taken())

	got, err := r.Conversation(ctx, ref("a", 16))
	require.NoError(t, err)
	require.Equal(t, eventlog.ConversationOf(testLog[:16]), got)
	require.Equal(t, pages("a", 7, 16), q.taken(), "only the new range is read")
}

func TestLogReaderServesRepeatedRefFromCache(t *testing.T) {
	q := newQuerier(t, "a")
	r := activities.NewLogReader(q, 0)
	ctx := context.Background()

	first, err := r.Conversation(ctx, ref("a", 13))
	require.NoError(t, err)
	require.NotEmpty(t, q.taken())

	second, err := r.Conversation(ctx, ref("a", 13))
	require.NoError(t, err)
	require.Empty(t, q.taken(), "a cached prefix costs no query")
	require.Equal(t, first, second)
	require.Equal(t, eventlog.ConversationOf(testLog[:13]), second)
}

func TestLogReaderRebuildsWhenRefIsBehindCache(t *testing.T) {
	q := newQuerier(t, "a")
	r := activities.NewLogReader(q, 0)
	ctx := context.Background()

	_, err := r.Conversation(ctx, ref("a", 16))
	require.NoError(t, err)
	q.taken()

	got, err := r.Conversation(ctx, ref("a", 9))
	require.NoError(t, err)
	require.Equal(t, eventlog.ConversationOf(testLog[:9]), got)
	require.Equal(t, pages("a", 0, 9), q.taken(), "an older prefix is refolded from the start")

	got, err = r.Conversation(ctx, ref("a", int64(len(testLog))))
	require.NoError(t, err)
	require.Equal(t, eventlog.ConversationOf(testLog), got)
	require.Equal(t, pages("a", 9, int64(len(testLog))), q.taken())
}

func TestLogReaderReturnsCallersOwnCopy(t *testing.T) {
	q := newQuerier(t, "a")
	r := activities.NewLogReader(q, 0)
	ctx := context.Background()

	got, err := r.Conversation(ctx, ref("a", 10))
	require.NoError(t, err)
	got[1].Content = "tampered"

	again, err := r.Conversation(ctx, ref("a", 10))
	require.NoError(t, err)
	require.Equal(t, eventlog.ConversationOf(testLog[:10]), again)
}

func TestLogReaderToolCallFindsArgumentsOfAssistantMessage(t *testing.T) {
	read := eventlog.ToolCallRequest{ID: "call_2_0", Name: "read_file", Arguments: []byte(`{"path":"README.md"}`)}
	calc := eventlog.ToolCallRequest{ID: "call_2_1", Name: "calculate", Arguments: []byte(`{"expression":"17*23"}`)}
	clock := eventlog.ToolCallRequest{ID: "call_1_0", Name: "current_time", Arguments: []byte(`{}`)}
	tests := []struct {
		name   string
		warm   int64 // Upto of a Conversation read before the ToolCall; 0 = cold
		seq    int64
		callID string
		want   eventlog.ToolCallRequest
		reads  []query
	}{
		{"latest message cached: no query", 13, 12, "call_2_1", calc, nil},
		{"latest message cached at its own end: no query", 16, 12, "call_2_0", read, nil},
		{"cold cache reads up to the message", 0, 12, "call_2_0", read, pages("a", 0, 13)},
		{"cache behind the message reads the rest", 9, 12, "call_2_1", calc, pages("a", 9, 13)},
		{"older message refolds from the start", 16, 7, "call_1_0", clock, pages("a", 0, 8)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newQuerier(t, "a")
			r := activities.NewLogReader(q, 0)
			ctx := context.Background()
			if tt.warm > 0 {
				_, err := r.Conversation(ctx, ref("a", tt.warm))
				require.NoError(t, err)
				q.taken()
			}

			got, err := r.ToolCall(ctx, ref("a", tt.seq+1), tt.seq, tt.callID)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			require.Equal(t, tt.reads, q.taken())
		})
	}
}

func TestLogReaderToolCallRejectsMissingCall(t *testing.T) {
	tests := []struct {
		name    string
		seq     int64
		callID  string
		wantErr string
	}{
		{"unknown call ID", 12, "call_9_9", `assistant message 12 of a has no tool call "call_9_9"`},
		{"seq is a user message", 5, "call_1_0", "log of a has no assistant message at seq 5"},
		{"seq is a text answer", 16, "call_2_0", "log of a has no assistant message at seq 16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := activities.NewLogReader(newQuerier(t, "a"), 0)
			_, err := r.ToolCall(context.Background(), ref("a", tt.seq+1), tt.seq, tt.callID)
			require.EqualError(t, err, tt.wantErr)
		})
	}
}

func TestLogReaderRejectsBrokenLogs(t *testing.T) {
	tests := []struct {
		name    string
		querier func(t *testing.T) *fakeLogQuerier
		upto    int64
		wantErr string
		wantIs  error
	}{
		{
			name: "page with a seq gap",
			querier: func(t *testing.T) *fakeLogQuerier {
				q := newQuerier(t, "a")
				q.logs["a"] = append(q.logs["a"][:3:3], q.logs["a"][4:]...) // drop seq 3
				return q
			},
			upto:    8,
			wantErr: "log page out of order: seq 4 at position 3",
		},
		{
			name:    "log shorter than the ref",
			querier: func(t *testing.T) *fakeLogQuerier { return newQuerier(t, "a") },
			upto:    int64(len(testLog)) + 3,
			wantErr: fmt.Sprintf("log of a ends at %d, before %d", len(testLog), len(testLog)+3),
		},
		{
			name: "undecodable event",
			querier: func(t *testing.T) *fakeLogQuerier {
				q := newQuerier(t, "a")
				q.logs["a"][4].Type = "bogus/type"
				return q
			},
			upto:    8,
			wantErr: `eventlog: unknown event type: "bogus/type" (seq 4)`,
			wantIs:  eventlog.ErrUnknownType,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := activities.NewLogReader(tt.querier(t), 0)
			_, err := r.Conversation(context.Background(), ref("a", tt.upto))
			require.EqualError(t, err, tt.wantErr)
			if tt.wantIs != nil {
				require.ErrorIs(t, err, tt.wantIs)
			}
		})
	}
}

func TestLogReaderWrapsQuerierError(t *testing.T) {
	errQuery := errors.New("workflow not found")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := newQuerier(t, "a")
	q.fail = func(int) error {
		cancel() // the attempt is over: no point retrying
		return errQuery
	}
	r := activities.NewLogReader(q, 0)

	_, err := r.Conversation(ctx, ref("a", 8))
	require.EqualError(t, err, "read log of a from 0: workflow not found")
	require.ErrorIs(t, err, errQuery)
	require.Len(t, q.taken(), 1, "a canceled attempt stops retrying")
}

func TestLogReaderRetriesTransientQueryFailure(t *testing.T) {
	q := newQuerier(t, "a")
	q.fail = func(n int) error {
		if n == 0 {
			return errors.New("no poller for the workflow's task queue")
		}
		return nil
	}
	r := activities.NewLogReader(q, 0)

	got, err := r.Conversation(context.Background(), ref("a", 5))
	require.NoError(t, err)
	require.Equal(t, eventlog.ConversationOf(testLog[:5]), got)
	want := pages("a", 0, 5)
	want = append([]query{want[0]}, want...)
	require.Equal(t, want, q.taken(), "the failed page is asked again")
}

// foldOf6 is what the reader accounts for one run folded to 6 events of
// testLog: an entry's overhead and the fold's content.
const foldOf6 = 1<<10 + int64(len("be brief")+len("time, README.md and 17*23 please"))

func TestLogReaderEvictsLeastRecentlyUsedRunPastItsByteBudget(t *testing.T) {
	tests := []struct {
		name       string
		budget     int64
		wantReread []query
	}{
		{"room for one fold: the second agent evicts the first", foldOf6 + 10, pages("a", 0, 6)},
		{"room for two: both stay cached", 2*foldOf6 + 10, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newQuerier(t, "a", "b")
			r := activities.NewLogReader(q, tt.budget)
			ctx := context.Background()

			_, err := r.Conversation(ctx, ref("a", 6))
			require.NoError(t, err)
			_, err = r.Conversation(ctx, ref("b", 6))
			require.NoError(t, err)
			require.Equal(t, append(pages("a", 0, 6), pages("b", 0, 6)...), q.taken())

			got, err := r.Conversation(ctx, ref("a", 6))
			require.NoError(t, err)
			require.Equal(t, eventlog.ConversationOf(testLog[:6]), got)
			require.Equal(t, tt.wantReread, q.taken())
		})
	}
}

func TestLogReaderEvictionSparesRecentlyReadRun(t *testing.T) {
	q := newQuerier(t, "a", "b", "c")
	r := activities.NewLogReader(q, 2*foldOf6+10)
	ctx := context.Background()
	read := func(agent string) {
		t.Helper()
		got, err := r.Conversation(ctx, ref(agent, 6))
		require.NoError(t, err)
		require.Equal(t, eventlog.ConversationOf(testLog[:6]), got)
	}

	read("a")
	read("b")
	read("a") // a is now the most recently used
	read("c") // evicts b, the least recently used
	q.taken()

	read("a")
	require.Empty(t, q.taken(), "a stayed cached")
	read("b")
	require.Equal(t, pages("b", 0, 6), q.taken(), "b was evicted")
}

func TestLogReaderKeysCacheByRun(t *testing.T) {
	q := newQuerier(t, "a")
	r := activities.NewLogReader(q, 0)
	ctx := context.Background()

	_, err := r.Conversation(ctx, signals.LogRef{AgentID: "a", RunID: "r1", Upto: 4})
	require.NoError(t, err)
	q.taken()

	_, err = r.Conversation(ctx, signals.LogRef{AgentID: "a", RunID: "r2", Upto: 4})
	require.NoError(t, err)
	require.Equal(t, []query{
		{agentID: "a", runID: "r2", req: signals.LogRequest{From: 0, To: 4}},
		{agentID: "a", runID: "r2", req: signals.LogRequest{From: 2, To: 4}},
	}, q.taken(), "another run of the same agent has its own fold")
}

func TestLogReaderConcurrentReadsOfOneRunReturnTheirOwnPrefix(t *testing.T) {
	q := newQuerier(t, "a")
	r := activities.NewLogReader(q, 0)
	const readers = 32
	type result struct {
		upto int64
		msgs []eventlog.Message
		err  error
	}
	results := make([]result, readers)
	var wg sync.WaitGroup
	for i := range readers {
		upto := int64(i % (len(testLog) + 1))
		wg.Go(func() {
			msgs, err := r.Conversation(context.Background(), ref("a", upto))
			results[i] = result{upto: upto, msgs: msgs, err: err}
		})
	}
	wg.Wait()
	for _, res := range results {
		require.NoError(t, res.err)
		require.Equal(t, eventlog.ConversationOf(testLog[:res.upto]), res.msgs, "upto %d", res.upto)
	}
}
