package workflows

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"pgregory.net/rapid"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/hook"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// Replaying a recorded run must rebuild every payload that carries its
// journal byte for byte, not only the commands Temporal compares: the
// inputs of its model, summary and tool activities, its journal markers
// (whose values a replay never recomputes), its Continue-As-New seed and
// its result. So where carry puts a Ready's journal is pinned by the
// corpus, and a change of it fails here even when replay would pass.
func TestReplayRebuildsEveryPayloadThatCarriesTheJournal(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "the replay corpus is missing")
	hooks, enabled := hook.Defaults()
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			hist := readHistory(t, f)
			want := recordedPayloads(hist.GetEvents())
			got := &payloads{inputs: map[string][]byte{}}
			agent := Agent{Config: Config{Hooks: hooks, DefaultHooks: enabled}}
			r, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{
				Interceptors: []interceptor.WorkerInterceptor{&payloadSpy{got: got}}})
			require.NoError(t, err)
			r.RegisterWorkflowWithOptions(agent.Run, workflow.RegisterOptions{Name: signals.AgentWorkflow})
			journaled, err := projection.FromHistory(hist.GetEvents())
			require.NoError(t, err)
			exec := workflow.Execution{ID: agentID(journaled),
				RunID: hist.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes().GetOriginalExecutionRunId()}
			require.NoError(t, r.ReplayWorkflowHistoryWithOptions(nil, hist, worker.ReplayWorkflowHistoryOptions{OriginalExecution: exec}))
			require.NoError(t, got.err)
			for id, in := range want.inputs {
				require.Contains(t, got.inputs, id, "replay scheduled no activity %s", id)
				require.Equal(t, withoutAttempts(t, in), withoutAttempts(t, got.inputs[id]), "activity %s's input", id)
			}
			require.Equal(t, want.markers, got.markers, "journal markers")
			require.Equal(t, string(want.end), string(got.end), "the seed or the result")
			require.NotEmpty(t, want.inputs, "a recorded run with no activity proves nothing here")
		})
	}
}

// payloads are what carry the journal in one run's history.
type payloads struct {
	inputs  map[string][]byte // activity ID → input
	markers []string          // journal markers, in order
	end     []byte            // the Continue-As-New input or the result
	err     error
}

func recordedPayloads(events []*historypb.HistoryEvent) payloads {
	p := payloads{inputs: map[string][]byte{}}
	for _, e := range events {
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			a := e.GetActivityTaskScheduledEventAttributes()
			p.inputs[a.GetActivityId()] = first(a.GetInput())
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			if d := first(e.GetMarkerRecordedEventAttributes().GetDetails()["data"]); isJournalMarker(d) {
				p.markers = append(p.markers, string(d))
			}
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
			p.end = first(e.GetWorkflowExecutionContinuedAsNewEventAttributes().GetInput())
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
			p.end = first(e.GetWorkflowExecutionCompletedEventAttributes().GetResult())
		}
	}
	return p
}

func first(ps *commonpb.Payloads) []byte {
	if len(ps.GetPayloads()) == 0 {
		return nil
	}
	return ps.GetPayloads()[0].GetData()
}

// withoutAttempts is an activity input less its attempts, which the
// worker's settings give (a test recorded some runs with its own).
func withoutAttempts(t *testing.T, in []byte) map[string]string {
	var fields map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(in, &fields))
	out := map[string]string{}
	for k, v := range fields {
		if k != "attempts" {
			out[k] = string(v)
		}
	}
	return out
}

func isJournalMarker(d []byte) bool {
	const key = `{"tether_journal":`
	return len(d) >= len(key) && string(d[:len(key)]) == key
}

// payloadSpy records what the replayed workflow code passes to Temporal.
type payloadSpy struct {
	interceptor.WorkerInterceptorBase
	got *payloads
}

func (s *payloadSpy) InterceptWorkflow(_ workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &inboundSpy{WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next}, got: s.got}
}

type inboundSpy struct {
	interceptor.WorkflowInboundInterceptorBase
	got *payloads
}

func (s *inboundSpy) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	return s.Next.Init(&outboundSpy{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: outbound}, got: s.got})
}

func (s *inboundSpy) ExecuteWorkflow(ctx workflow.Context, in *interceptor.ExecuteWorkflowInput) (any, error) {
	res, err := s.Next.ExecuteWorkflow(ctx, in)
	var can *workflow.ContinueAsNewError
	switch {
	case errors.As(err, &can):
		s.got.end = first(can.Input)
	case err == nil:
		s.got.end = s.got.encode(res)
	}
	return res, err
}

type outboundSpy struct {
	interceptor.WorkflowOutboundInterceptorBase
	got *payloads
}

func (s *outboundSpy) ExecuteActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	s.got.inputs[workflow.GetActivityOptions(ctx).ActivityID] = s.got.encode(args...)
	return s.Next.ExecuteActivity(ctx, activityType, args...)
}

// SideEffect computes a journal marker's value again: a replay takes the
// recorded one and never calls f.
func (s *outboundSpy) SideEffect(ctx workflow.Context, f func(workflow.Context) any) converter.EncodedValue {
	if m, ok := f(ctx).(signals.JournalMarker); ok {
		s.got.markers = append(s.got.markers, string(s.got.encode(m)))
	}
	return s.Next.SideEffect(ctx, f)
}

func (p *payloads) encode(v ...any) []byte {
	ps, err := converter.GetDefaultDataConverter().ToPayloads(v...)
	if err != nil {
		p.err = errors.Join(p.err, err)
		return nil
	}
	return first(ps)
}

// A seed's journal joined from its Ready's journal and those of the
// inputs applied while the run settled is, to the byte, the journal of all
// their events packed at once (what the seed held when the loop packed
// it); a gap between them is an error, never a journal that skips events.
func TestAppendJournalIsTheJournalOfAllItsEvents(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		from := rapid.Int64Range(0, 1000).Draw(t, "from")
		at := time.UnixMilli(rapid.Int64Range(1, 1<<41).Draw(t, "at"))
		n := rapid.IntRange(1, 12).Draw(t, "events")
		envs := make([]eventlog.Envelope, n)
		for i := range envs {
			at = at.Add(time.Duration(rapid.Int64Range(0, 5000).Draw(t, "gap")) * time.Millisecond)
			env, err := eventlog.Encode(from+int64(i), at, "", eventlog.StepEnd{Turn: i, Step: 1})
			require.NoError(t, err)
			envs[i] = env
		}
		k := rapid.IntRange(0, n).Draw(t, "split")
		whole, err := signals.NewJournal(envs)
		require.NoError(t, err)
		a, err := signals.NewJournal(envs[:k])
		require.NoError(t, err)
		b, err := signals.NewJournal(envs[k:])
		require.NoError(t, err)
		got, err := appendJournal(a, b)
		require.NoError(t, err)
		wantJSON, err := json.Marshal(whole)
		require.NoError(t, err)
		gotJSON, err := json.Marshal(got)
		require.NoError(t, err)
		require.Equal(t, string(wantJSON), string(gotJSON))
		if k > 0 && k < n-1 {
			c, err := signals.NewJournal(envs[k+1:])
			require.NoError(t, err)
			_, err = appendJournal(a, c)
			require.Error(t, err, "event %d is missing", from+int64(k))
		}
	})
}
