package chaos

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// results are the checks' findings and what the figures need.
type results struct {
	v       *violations
	records []*record
	journal []execution
	utf8    int // flood messages that got in, their invalid UTF-8 decoded
}

// check runs every check on the quiescent fleet.
func check(ctx context.Context, t *testing.T, c client.Client, dir string, ids []string, led *ledger,
	streams *streamTally, fl *flood, cf *clientFaults) results {
	res := results{v: &violations{}}
	v := res.v
	for _, e := range led.errs {
		v.add("fleet: %s", e)
	}
	journal, err := readJournal(dir)
	if err != nil {
		v.add("journal: %v", err)
	}
	res.journal = journal
	keys := byKey(journal)
	cfg, err := replayConfig()
	require.NoError(t, err)
	checkFloodStarts(ctx, c, fl, v)
	res.records = collect(ctx, c, append(slices.Clone(ids), fl.startedBy("start-absurd-valid")...), fl.startedMap(), v)
	reads := streams.complete()
	owners := map[string]bool{}
	for _, r := range res.records {
		owners[r.id] = true
		r.cut = cf.disposedMidTurn(r.id)
		checkLog(r, v)
		checkReplay(r, cfg, v)
		checkEnds(ctx, c, r, v)
		if _, err := eventlog.DecodeAll(r.log); err != nil {
			continue
		}
		checkMessages(r, led.acceptedIDs(r.id), v)
		checkDecisions(r, led.decisionsOf(r.id), v)
		checkTools(r, keys, v)
		checkFaults(r, v)
		checkConversation(r, v)
		checkStreams(r, reads[r.id], v)
		if r.fleet() {
			res.utf8 += checkFlood(r, v)
		}
	}
	for key := range keys {
		if owner, _, _ := strings.Cut(key, "/"); !owners[owner] {
			v.add("the journal has executions of %s, an agent the checks never found", key)
		}
	}
	checkListed(ctx, c, v)
	cf.check(ctx, res.records, v)
	for _, a := range attacks {
		if n := fl.count(a.name, outAccepted); a.refused && n > 0 {
			v.add("flood: %d %s updates were accepted", n, a.name)
		}
	}
	return res
}

// checkFloodStarts: a start with options no agent may run with failed
// with tether.InvalidInput, one whose input does not decode failed, and
// none was terminated; each end is counted with its attack.
func checkFloodStarts(ctx context.Context, c client.Client, fl *flood, v *violations) {
	starts := fl.startedMap()
	for _, id := range slices.Sorted(maps.Keys(starts)) {
		attack := starts[id]
		events, err := projection.Fetch(ctx, c, id, "")
		if err != nil || len(events) == 0 {
			v.add("%s (%s): no history: %v", id, attack, err)
			continue
		}
		last := events[len(events)-1]
		end := "running"
		if a := last.GetWorkflowExecutionFailedEventAttributes(); a != nil {
			end = "failed: " + failureKind(a.GetFailure())
		} else if isClose(last.GetEventType()) {
			end = strings.ToLower(strings.TrimPrefix(last.GetEventType().String(), "EVENT_TYPE_WORKFLOW_EXECUTION_"))
		}
		fl.note(attack, "ended "+end)
		switch want := map[string]string{"start-invalid": "failed: tether.InvalidInput", "start-absurd-valid": "running"}[attack]; {
		case want != "" && end != want:
			v.add("%s (%s) ended %q, want %q", id, attack, end, want)
		case want == "" && !strings.HasPrefix(end, "failed: "):
			v.add("%s (%s) ended %q, want failed", id, attack, end)
		}
	}
}

func isClose(t enumspb.EventType) bool {
	switch t {
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
		enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
		enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
		return true
	}
	return false
}

// checkListed: every agent workflow visibility lists, closed runs
// included, is running, completed or continued as new (the flood's own
// starts aside).
func checkListed(ctx context.Context, c client.Client, v *violations) {
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: "WorkflowType = '" + signals.AgentWorkflow + "'", NextPageToken: token, PageSize: 1000})
		if err != nil {
			v.add("list agent workflows: %v", err)
			return
		}
		for _, ex := range resp.GetExecutions() {
			id := ex.GetExecution().GetWorkflowId()
			switch ex.GetStatus() {
			case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED,
				enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
			default:
				if !strings.HasPrefix(id, "flood-start-") {
					v.add("%s: run %s is %s", id, ex.GetExecution().GetRunId(), ex.GetStatus())
				}
			}
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			return
		}
	}
}

// startedBy lists the workflows the flood started with attack.
func (f *flood) startedBy(attack string) []string {
	var out []string
	for id, a := range f.startedMap() {
		if a == attack {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

func (f *flood) startedMap() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.starts)
}

func (f *flood) count(attack, outcome string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tally[attack][outcome]
}

func (l *ledger) decisionsOf(agentID string) map[string]decision {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.decisions[agentID])
}
