package devserver

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/grpc"

	"github.com/tetherdev/tether/signals"
)

// StartPolicy is the frontend interceptor that holds every start of the
// agent workflow (signals.AgentWorkflow) to Tether's rule, whichever client
// sent it: an agent's ID names one session, never two. Node.NewServer puts
// it on the embedded server and on internal/cluster's.
//
// StartWorkflowExecution, SignalWithStartWorkflowExecution and the start of
// ExecuteMultiOperation (update-with-start) of tether.Agent get the reuse
// policy REJECT_DUPLICATE, so a start under the ID of a closed agent is
// refused (WorkflowExecutionAlreadyStarted). A start or update-with-start
// that leaves the conflict policy unspecified gets FAIL, so one under a
// running agent's ID is refused too unless it asks USE_EXISTING;
// signal-with-start keeps Temporal's USE_EXISTING (the server takes no FAIL
// there): it signals the running agent and starts nothing. A request that asks for a policy that could
// open a second session under the ID (reuse ALLOW_DUPLICATE,
// ALLOW_DUPLICATE_FAILED_ONLY or TERMINATE_IF_RUNNING; conflict
// TERMINATE_EXISTING), a cron schedule or a retry policy of more than one
// attempt is refused with InvalidArgument naming the rule, before anything
// is written. Other workflow types pass untouched.
func StartPolicy(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	var err error
	switch r := req.(type) {
	case *workflowservice.StartWorkflowExecutionRequest:
		err = holdStart(r)
	case *workflowservice.SignalWithStartWorkflowExecutionRequest:
		err = holdSignalWithStart(r)
	case *workflowservice.ExecuteMultiOperationRequest:
		for _, op := range r.GetOperations() {
			if start := op.GetStartWorkflow(); start != nil && err == nil {
				err = holdStart(start)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

// startRequest is what StartWorkflowExecution and SignalWithStart
// requests share of the rule's fields.
type startRequest interface {
	GetWorkflowType() *commonpb.WorkflowType
	GetWorkflowId() string
	GetWorkflowIdReusePolicy() enumspb.WorkflowIdReusePolicy
	GetWorkflowIdConflictPolicy() enumspb.WorkflowIdConflictPolicy
	GetCronSchedule() string
	GetRetryPolicy() *commonpb.RetryPolicy
}

func holdStart(r *workflowservice.StartWorkflowExecutionRequest) (err error) {
	if s, ok := agentStartOf(r, enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL); ok {
		r.WorkflowIdReusePolicy, r.WorkflowIdConflictPolicy, err = s.policies()
	}
	return err
}

func holdSignalWithStart(r *workflowservice.SignalWithStartWorkflowExecutionRequest) (err error) {
	if s, ok := agentStartOf(r, enumspb.WORKFLOW_ID_CONFLICT_POLICY_UNSPECIFIED); ok {
		r.WorkflowIdReusePolicy, r.WorkflowIdConflictPolicy, err = s.policies()
	}
	return err
}

// agentStartOf reads r when it starts tether.Agent; conflict is the
// conflict policy it gets when it leaves it unspecified.
func agentStartOf(r startRequest, conflict enumspb.WorkflowIdConflictPolicy) (agentStart, bool) {
	if r.GetWorkflowType().GetName() != signals.AgentWorkflow {
		return agentStart{}, false
	}
	attempts := int32(1) // without a retry policy a run is not retried
	if p := r.GetRetryPolicy(); p != nil {
		attempts = p.GetMaximumAttempts() // 0 is unlimited
	}
	return agentStart{id: r.GetWorkflowId(), reuse: r.GetWorkflowIdReusePolicy(), conflict: r.GetWorkflowIdConflictPolicy(),
		cron: r.GetCronSchedule(), attempts: attempts, defaultConflict: conflict}, true
}

// agentStart is what the rule reads of a start of tether.Agent.
type agentStart struct {
	id       string
	reuse    enumspb.WorkflowIdReusePolicy
	conflict enumspb.WorkflowIdConflictPolicy
	cron     string
	attempts int32
	// defaultConflict replaces an unspecified conflict policy.
	defaultConflict enumspb.WorkflowIdConflictPolicy
}

const startRule = "an agent's ID names one session, so Tether's server starts tether.Agent only with WorkflowIdReusePolicy REJECT_DUPLICATE"

func (s agentStart) check() error {
	switch s.reuse {
	case enumspb.WORKFLOW_ID_REUSE_POLICY_UNSPECIFIED, enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE:
	default:
		return s.refuse("WorkflowIdReusePolicy %s is refused: %s (or unspecified, which means it)", reuseName(s.reuse), startRule)
	}
	if s.conflict == enumspb.WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING {
		return s.refuse("WorkflowIdConflictPolicy TERMINATE_EXISTING is refused: %s, and a running agent is cancelled or disposed, never replaced (use FAIL, the default, or USE_EXISTING)", startRule)
	}
	if s.cron != "" {
		return s.refuse("a cron schedule is refused: each cron run would open a new session under the agent's ID; %s", startRule)
	}
	if s.attempts != 1 {
		return s.refuse("a workflow retry policy of more than one attempt is refused: a retried run would open a new session under the agent's ID (the agent retries its own model and tool calls); %s", startRule)
	}
	return nil
}

// policies are the start's policies under the rule: REJECT_DUPLICATE, and
// the conflict policy asked or else the default; or the reason it is
// refused.
func (s agentStart) policies() (enumspb.WorkflowIdReusePolicy, enumspb.WorkflowIdConflictPolicy, error) {
	if err := s.check(); err != nil {
		return s.reuse, s.conflict, err
	}
	conflict := s.conflict
	if conflict == enumspb.WORKFLOW_ID_CONFLICT_POLICY_UNSPECIFIED {
		conflict = s.defaultConflict
	}
	return enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE, conflict, nil
}

func (s agentStart) refuse(format string, args ...any) error {
	return serviceerror.NewInvalidArgument(fmt.Sprintf("start %s %q: ", signals.AgentWorkflow, s.id) + fmt.Sprintf(format, args...))
}

// reuseName is p's name in the API (ALLOW_DUPLICATE), which clients of
// every language spell alike.
func reuseName(p enumspb.WorkflowIdReusePolicy) string {
	if name, ok := enumspb.WorkflowIdReusePolicy_name[int32(p)]; ok {
		return strings.TrimPrefix(name, "WORKFLOW_ID_REUSE_POLICY_")
	}
	return strconv.Itoa(int(p))
}
