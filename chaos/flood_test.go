package chaos

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	failurepb "go.temporal.io/api/failure/v1"
	"go.temporal.io/api/serviceerror"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	updatepb "go.temporal.io/api/update/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/grpc/codes"

	"github.com/tetherdev/tether/signals"
)

// floodMarker starts the content of everything the flood sends, so the
// logs can be searched for what got in.
const floodMarker = "FLOOD-"

// flood is the second client: it sends bad and oversized input to the
// fleet's agents through the Temporal service API directly (no Go client
// validation on the way), and counts how each was refused. Sends of about
// 2 MB are spaced out (bigEvery), so the flood tests refusal, not disk
// bandwidth.
type flood struct {
	c        client.Client
	ns       string
	rng      *rand.Rand
	led      *ledger
	targets  []string // the fleet's agents
	spawners []string // those that start children
	bigEvery time.Duration
	maxStart int

	mu      sync.Mutex
	tally   map[string]map[string]int // attack → outcome → count
	starts  map[string]string         // workflow ID → attack that started it
	lastBig time.Time
	n       int
}

func (f *flood) seq() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	return f.n
}

// run sends one attack every gap (jittered) until quiet is closed.
func (f *flood) run(ctx context.Context, quiet <-chan struct{}, gap time.Duration) {
	for {
		select {
		case <-quiet:
			return
		case <-ctx.Done():
			return
		case <-time.After(jitter(f.rng, gap/2, 3*gap/2)):
		}
		a := attacks[f.rng.IntN(len(attacks))]
		if !f.allowed(a) {
			continue
		}
		target := f.targets[f.rng.IntN(len(f.targets))]
		f.note(a.name, a.run(ctx, f, target))
	}
}

// allowed spaces out the big attacks and bounds the starts.
func (f *flood) allowed(a attack) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case a.bug != "" && !*flagKnownBugs:
		return false
	case a.big && time.Since(f.lastBig) < f.bigEvery:
		return false
	case a.big:
		f.lastBig = time.Now()
	case a.start && len(f.starts) >= f.maxStart:
		return false
	}
	return true
}

func (f *flood) note(attack, outcome string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.tally[attack] == nil {
		f.tally[attack] = map[string]int{}
	}
	f.tally[attack][outcome]++
}

// Outcomes of a send.
const (
	outTaken    = "taken by the server" // a signal: the agent decides (the logs say what it did)
	outAccepted = "accepted"            // an update the workflow accepted
	outSkipped  = "skipped"             // nothing to send yet (no accepted ID to repeat)
)

// signal sends a raw signal.
func (f *flood) signal(ctx context.Context, wid, name string, in *commonpb.Payloads) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := f.c.WorkflowService().SignalWorkflowExecution(ctx, &workflowservice.SignalWorkflowExecutionRequest{
		Namespace: f.ns, WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: wid}, SignalName: name,
		Input: in, Identity: "chaos-flood", RequestId: fmt.Sprintf("flood-%d", f.seq()),
	})
	if err != nil {
		return grpcOutcome(err)
	}
	return outTaken
}

// update sends a raw update and waits for its outcome.
func (f *flood) update(ctx context.Context, wid, name, id string, in *commonpb.Payloads) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	resp, err := f.c.WorkflowService().UpdateWorkflowExecution(ctx, &workflowservice.UpdateWorkflowExecutionRequest{
		Namespace: f.ns, WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: wid},
		WaitPolicy: &updatepb.WaitPolicy{LifecycleStage: enumspb.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED},
		Request: &updatepb.Request{Meta: &updatepb.Meta{UpdateId: id, Identity: "chaos-flood"},
			Input: &updatepb.Input{Name: name, Args: in}},
	})
	switch {
	case err != nil:
		return grpcOutcome(err)
	case resp.GetOutcome().GetFailure() != nil:
		return "rejected: " + failureKind(resp.GetOutcome().GetFailure())
	case resp.GetOutcome().GetSuccess() != nil:
		return outAccepted
	}
	return "no outcome: stage " + resp.GetStage().String()
}

// start starts an agent workflow with raw input; its end is read at the
// check.
func (f *flood) start(ctx context.Context, attack string, in *commonpb.Payloads) string {
	id := fmt.Sprintf("flood-start-%d", f.seq())
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := f.c.WorkflowService().StartWorkflowExecution(ctx, &workflowservice.StartWorkflowExecutionRequest{
		Namespace: f.ns, WorkflowId: id, WorkflowType: &commonpb.WorkflowType{Name: signals.AgentWorkflow},
		TaskQueue: &taskqueuepb.TaskQueue{Name: signals.TaskQueue}, Input: in, Identity: "chaos-flood", RequestId: id,
	})
	if err != nil {
		return grpcOutcome(err)
	}
	f.mu.Lock()
	f.starts[id] = attack
	f.mu.Unlock()
	return "started"
}

// grpcOutcome classifies a failed call: refused by the server, or no
// outcome (the server is down, or no worker answered in time).
func grpcOutcome(err error) string {
	code := serviceerror.ToStatus(err).Code()
	if errors.Is(err, context.DeadlineExceeded) {
		code = codes.DeadlineExceeded
	}
	switch code {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:
		return "no outcome: " + code.String()
	case codes.Unknown: // the server's answer did not say; its words do
		msg := err.Error()
		if len(msg) > 40 {
			msg = msg[:40]
		}
		return "no outcome: Unknown (" + msg + ")"
	}
	return "refused by the server: " + code.String()
}

// failureKind is a rejection's type, or the stable start of its message.
func failureKind(f *failurepb.Failure) string {
	if t := f.GetApplicationFailureInfo().GetType(); t != "" {
		return t
	}
	msg, _, _ := strings.Cut(f.GetMessage(), ":")
	msg, _, _ = strings.Cut(msg, ".") // "unknown update x. KnownUpdates=[…]" lists them in any order
	if len(msg) > 60 {
		msg = msg[:60]
	}
	return msg
}

// summary lists the attacks and their outcomes in a stable order.
func (f *flood) summary() (lines []string, sent int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range attacks {
		outs := f.tally[a.name]
		var parts []string
		for _, o := range slices.Sorted(maps.Keys(outs)) {
			parts = append(parts, fmt.Sprintf("%s %d", o, outs[o]))
			sent += outs[o]
		}
		if len(parts) > 0 {
			lines = append(lines, fmt.Sprintf("%-20s %s", a.name, strings.Join(parts, ", ")))
		}
	}
	return lines, sent
}
