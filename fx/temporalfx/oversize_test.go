package temporalfx

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	protocolpb "go.temporal.io/api/protocol/v1"
	updatepb "go.temporal.io/api/update/v1"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/tetherdev/tether/signals"
)

func updateMessage(t *testing.T, name string, size int) *protocolpb.Message {
	t.Helper()
	body, err := anypb.New(&updatepb.Request{Meta: &updatepb.Meta{UpdateId: name}, Input: &updatepb.Input{Name: name,
		Args: &commonpb.Payloads{Payloads: []*commonpb.Payload{{
			Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: []byte(strings.Repeat("x", size))}}}}})
	require.NoError(t, err)
	return &protocolpb.Message{Id: name, Body: body}
}

func inputOf(t *testing.T, m *protocolpb.Message) *commonpb.Payloads {
	t.Helper()
	var u updatepb.Request
	require.NoError(t, m.GetBody().UnmarshalTo(&u))
	return u.GetInput().GetArgs()
}

// An update input over the bound is replaced as the task arrives, by a
// payload no converter decodes that says how large it was; inputs within
// the bound, and other messages, pass untouched.
func TestAnOversizeUpdateInputIsReplacedAndTheRestPassUntouched(t *testing.T) {
	small := updateMessage(t, "followup", 1<<10)
	atBound := updateMessage(t, "steer", signals.MaxUpdateInputBytes-64)
	big := updateMessage(t, "inject", signals.MaxUpdateInputBytes+1)
	other, err := anypb.New(&updatepb.Acceptance{AcceptedRequestMessageId: "x"})
	require.NoError(t, err)
	notUpdate := &protocolpb.Message{Id: "other", Body: other}
	want := []*protocolpb.Message{proto.Clone(small).(*protocolpb.Message), proto.Clone(atBound).(*protocolpb.Message),
		nil, proto.Clone(notUpdate).(*protocolpb.Message)}

	r := &workflowservice.PollWorkflowTaskQueueResponse{Messages: []*protocolpb.Message{small, atBound, big, notUpdate}}
	shrinkUpdates(r)

	for i, w := range want {
		if w != nil {
			require.True(t, proto.Equal(w, r.Messages[i]), "message %d is untouched", i)
		}
	}
	args := inputOf(t, r.Messages[2])
	require.Len(t, args.GetPayloads(), 1)
	require.Empty(t, args.GetPayloads()[0].GetData())
	enc := string(args.GetPayloads()[0].GetMetadata()["encoding"])
	require.True(t, strings.HasPrefix(enc, OversizeEncoding+": "), enc)
	require.Contains(t, enc, "over the limit")
	require.Less(t, proto.Size(args), 1<<10, "the rejection that repeats it is small")
	require.Equal(t, "inject", func() string {
		var u updatepb.Request
		require.NoError(t, r.Messages[2].GetBody().UnmarshalTo(&u))
		return u.GetInput().GetName()
	}(), "the update keeps its name, so the workflow rejects it")
}
