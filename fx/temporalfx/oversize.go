package temporalfx

import (
	"context"
	"fmt"

	commonpb "go.temporal.io/api/common/v1"
	updatepb "go.temporal.io/api/update/v1"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/tetherdev/tether/signals"
)

// OversizeEncoding is the payload encoding that stands in for an update's
// input over signals.MaxUpdateInputBytes. No converter knows it, so the
// workflow rejects the update, naming it.
const OversizeEncoding = "tether/dropped-oversize-input"

// pollWorkflowTask is the method whose replies carry update requests.
const pollWorkflowTask = workflowservice.WorkflowService_PollWorkflowTaskQueue_FullMethodName

// dropOversizeUpdates keeps an oversized update from wedging an agent.
// Temporal's server does not bound an update's input, and the SDK answers
// a rejected update with the whole request: an input over the payload
// limit (2 MiB) makes that answer too large, so every workflow task of the
// agent fails while the server holds the update. No input Tether accepts
// comes near the limit, so as a task arrives each update input over
// signals.MaxUpdateInputBytes is replaced by a small payload in
// OversizeEncoding that says how large it was; the update is then
// rejected with a small answer and the agent goes on.
func dropOversizeUpdates(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn,
	invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	err := invoker(ctx, method, req, reply, cc, opts...)
	if err != nil || method != pollWorkflowTask {
		return err
	}
	if r, ok := reply.(*workflowservice.PollWorkflowTaskQueueResponse); ok {
		shrinkUpdates(r)
	}
	return nil
}

// updateRequestName is the protocol message body of an update request.
var updateRequestName = (&updatepb.Request{}).ProtoReflect().Descriptor().FullName()

// shrinkUpdates replaces the oversized inputs of r's update requests.
func shrinkUpdates(r *workflowservice.PollWorkflowTaskQueueResponse) {
	for _, m := range r.GetMessages() {
		body := m.GetBody()
		if body == nil || body.MessageName() != updateRequestName {
			continue
		}
		var u updatepb.Request
		if body.UnmarshalTo(&u) != nil {
			continue
		}
		args := u.GetInput().GetArgs()
		size := proto.Size(args)
		if size <= signals.MaxUpdateInputBytes {
			continue
		}
		u.Input.Args = &commonpb.Payloads{Payloads: []*commonpb.Payload{{
			Metadata: map[string][]byte{"encoding": []byte(fmt.Sprintf("%s: the input of %d bytes is over the limit of %d",
				OversizeEncoding, size, signals.MaxUpdateInputBytes))},
		}}}
		if a, err := anypb.New(&u); err == nil {
			m.Body = a
		}
	}
}
