package devserver

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"pgregory.net/rapid"

	"github.com/tetherdev/tether/signals"
)

// intercept runs StartPolicy on req and returns the request the frontend's
// handler got (nil when it was refused) and the error.
func intercept(req any) (any, error) {
	var got any
	_, err := StartPolicy(context.Background(), req, &grpc.UnaryServerInfo{}, func(_ context.Context, r any) (any, error) {
		got = r
		return nil, nil
	})
	return got, err
}

func drawStart(t *rapid.T) *workflowservice.StartWorkflowExecutionRequest {
	r := &workflowservice.StartWorkflowExecutionRequest{
		WorkflowId:               rapid.StringMatching(`[a-z0-9-]{1,12}`).Draw(t, "id"),
		WorkflowType:             &commonpb.WorkflowType{Name: rapid.SampledFrom([]string{signals.AgentWorkflow, "other.Workflow", "tether.Agentx"}).Draw(t, "type")},
		WorkflowIdReusePolicy:    enumspb.WorkflowIdReusePolicy(rapid.Int32Range(0, 5).Draw(t, "reuse")),
		WorkflowIdConflictPolicy: enumspb.WorkflowIdConflictPolicy(rapid.Int32Range(0, 4).Draw(t, "conflict")),
		CronSchedule:             rapid.SampledFrom([]string{"", "", "@every 1h"}).Draw(t, "cron"),
	}
	if rapid.Bool().Draw(t, "retry") {
		r.RetryPolicy = &commonpb.RetryPolicy{MaximumAttempts: rapid.Int32Range(0, 3).Draw(t, "attempts")}
	}
	return r
}

// Whatever a start asks, the agent workflow is either refused with
// InvalidArgument, nothing reaching the handler, or reaches it with
// REJECT_DUPLICATE and the conflict policy asked, FAIL when a start or
// update-with-start asked none (signal-with-start keeps the server's
// default, USE_EXISTING), everything else as sent; other workflow types
// reach it exactly as sent.
func TestStartPolicyLetsAnAgentStartOnlyUnderOneSessionPerID(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		req := drawStart(t)
		sent := proto.Clone(req).(*workflowservice.StartWorkflowExecutionRequest)
		var got any
		var err error
		signalWithStart := rapid.Bool().Draw(t, "signal-with-start")
		if signalWithStart {
			sw := &workflowservice.SignalWithStartWorkflowExecutionRequest{WorkflowId: req.WorkflowId, WorkflowType: req.WorkflowType,
				WorkflowIdReusePolicy: req.WorkflowIdReusePolicy, WorkflowIdConflictPolicy: req.WorkflowIdConflictPolicy,
				CronSchedule: req.CronSchedule, RetryPolicy: req.RetryPolicy, SignalName: "followup"}
			got, err = intercept(sw)
			if got != nil {
				req.WorkflowIdReusePolicy, req.WorkflowIdConflictPolicy = sw.WorkflowIdReusePolicy, sw.WorkflowIdConflictPolicy
			}
		} else {
			multi := &workflowservice.ExecuteMultiOperationRequest{Operations: []*workflowservice.ExecuteMultiOperationRequest_Operation{
				{Operation: &workflowservice.ExecuteMultiOperationRequest_Operation_StartWorkflow{StartWorkflow: req}},
				{Operation: &workflowservice.ExecuteMultiOperationRequest_Operation_UpdateWorkflow{UpdateWorkflow: &workflowservice.UpdateWorkflowExecutionRequest{}}},
			}}
			if rapid.Bool().Draw(t, "plain start") {
				got, err = intercept(req)
			} else {
				got, err = intercept(multi)
			}
		}

		if sent.GetWorkflowType().GetName() != signals.AgentWorkflow {
			require.NoError(t, err)
			require.NotNil(t, got)
			require.True(t, proto.Equal(sent, req), "another workflow type passes untouched")
			return
		}
		allowed := (sent.WorkflowIdReusePolicy == enumspb.WORKFLOW_ID_REUSE_POLICY_UNSPECIFIED ||
			sent.WorkflowIdReusePolicy == enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE) &&
			sent.WorkflowIdConflictPolicy != enumspb.WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING &&
			sent.CronSchedule == "" && (sent.RetryPolicy == nil || sent.RetryPolicy.MaximumAttempts == 1)
		if !allowed {
			var invalid *serviceerror.InvalidArgument
			require.ErrorAs(t, err, &invalid)
			require.Contains(t, err.Error(), "an agent's ID names one session")
			require.Contains(t, err.Error(), sent.WorkflowId)
			require.Nil(t, got, "a refused start reaches no handler")
			return
		}
		require.NoError(t, err)
		require.NotNil(t, got)
		require.Equal(t, enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE, req.WorkflowIdReusePolicy)
		want := sent.WorkflowIdConflictPolicy
		if want == enumspb.WORKFLOW_ID_CONFLICT_POLICY_UNSPECIFIED && !signalWithStart {
			want = enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL
		}
		require.Equal(t, want, req.WorkflowIdConflictPolicy)
		req.WorkflowIdReusePolicy, req.WorkflowIdConflictPolicy = sent.WorkflowIdReusePolicy, sent.WorkflowIdConflictPolicy
		require.True(t, proto.Equal(sent, req), "only the policies change")
	})
}

func TestStartPolicyNamesTheRuleAndThePolicyItRefuses(t *testing.T) {
	_, err := intercept(&workflowservice.StartWorkflowExecutionRequest{WorkflowId: "support-42",
		WorkflowType:          &commonpb.WorkflowType{Name: signals.AgentWorkflow},
		WorkflowIdReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY})
	require.EqualError(t, err, `start tether.Agent "support-42": WorkflowIdReusePolicy ALLOW_DUPLICATE_FAILED_ONLY is refused: `+
		`an agent's ID names one session, so Tether's server starts tether.Agent only with WorkflowIdReusePolicy REJECT_DUPLICATE (or unspecified, which means it)`)
}
