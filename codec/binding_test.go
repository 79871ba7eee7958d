package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"
)

func inWorkflow(c converter.PayloadCodec, ns, id string) converter.PayloadCodec {
	return c.(converter.PayloadCodecWithSerializationContext).WithSerializationContext(
		converter.WorkflowSerializationContext{Namespace: ns, WorkflowID: id})
}

func encodeWith(t *testing.T, c converter.PayloadCodec, p *commonpb.Payload) *commonpb.Payload {
	t.Helper()
	out, err := c.Encode([]*commonpb.Payload{p})
	require.NoError(t, err)
	return out[0]
}

func decodeWith(c converter.PayloadCodec, p *commonpb.Payload) (*commonpb.Payload, error) {
	out, err := c.Decode([]*commonpb.Payload{p})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// Issue 20: ciphertext copied from agent A's history into a message to
// agent B is not decrypted by B.
func TestAPayloadBoundToOneWorkflowIsRefusedByAnother(t *testing.T) {
	c := newCodec(t, "", newKey(t, "k1"))
	in := plain(t, "agent A's secret")
	fromA := encodeWith(t, inWorkflow(c, "default", "agent-a"), in)
	require.Equal(t, VersionBound, string(fromA.Metadata[MetadataVersion]))
	require.Equal(t, "agent-a", string(fromA.Metadata[MetadataWorkflowID]))
	require.Equal(t, "default", string(fromA.Metadata[MetadataNamespace]))

	dec, err := decodeWith(inWorkflow(c, "default", "agent-a"), fromA)
	require.NoError(t, err)
	require.True(t, proto.Equal(in, dec), "A reads its own payload")

	for _, other := range []struct{ ns, id string }{{"default", "agent-b"}, {"other", "agent-a"}, {"default", "agent-a2"}} {
		_, err = decodeWith(inWorkflow(c, other.ns, other.id), fromA)
		var be *BindingError
		require.ErrorAs(t, err, &be, "%s/%s", other.ns, other.id)
		require.Equal(t, BindingError{Namespace: "default", WorkflowID: "agent-a", WantNamespace: other.ns, WantWorkflowID: other.id}, *be)
	}

	dec, err = decodeWith(c, fromA)
	require.NoError(t, err, "without a context (the codec server, a history reader) any binding decodes")
	require.True(t, proto.Equal(in, dec))
}

// The binding is authenticated: rewriting it in the metadata, or removing
// it to pass the payload off as written before binding, fails.
func TestARewrittenOrRemovedBindingFailsToDecrypt(t *testing.T) {
	c := newCodec(t, "", newKey(t, "k1"))
	fromA := encodeWith(t, inWorkflow(c, "default", "agent-a"), plain(t, "secret"))
	edits := map[string]func(md map[string][]byte){
		"workflow rewritten":  func(md map[string][]byte) { md[MetadataWorkflowID] = []byte("agent-b") },
		"namespace rewritten": func(md map[string][]byte) { md[MetadataNamespace] = []byte("other") },
		"binding removed": func(md map[string][]byte) {
			delete(md, MetadataVersion)
			delete(md, MetadataNamespace)
			delete(md, MetadataWorkflowID)
		},
		"version removed":  func(md map[string][]byte) { delete(md, MetadataVersion) },
		"unknown version":  func(md map[string][]byte) { md[MetadataVersion] = []byte("3") },
		"workflow dropped": func(md map[string][]byte) { delete(md, MetadataWorkflowID) },
	}
	for name, edit := range edits {
		t.Run(name, func(t *testing.T) {
			p := proto.Clone(fromA).(*commonpb.Payload)
			edit(p.Metadata)
			for _, dc := range []converter.PayloadCodec{c, inWorkflow(c, "default", "agent-b"), inWorkflow(c, "default", "agent-a")} {
				_, err := decodeWith(dc, p)
				var de *DecryptError
				var be *BindingError
				require.True(t, errors.As(err, &de) || errors.As(err, &be), "got %v", err)
			}
		})
	}
}

// Payloads written before binding (version 1) stay readable in every
// context, under every configured key: old histories replay.
func TestUnboundPayloadsStayReadableInEveryContext(t *testing.T) {
	k1, k2 := newKey(t, "k1"), newKey(t, "k2")
	before := newCodec(t, "", k1)
	old := encodeWith(t, before, plain(t, "written before binding"))
	require.NotContains(t, old.Metadata, MetadataVersion)

	after := newCodec(t, "k2", k1, k2)
	for _, dc := range []converter.PayloadCodec{after, inWorkflow(after, "default", "agent-a"), inWorkflow(after, "default", "agent-b")} {
		dec, err := decodeWith(dc, old)
		require.NoError(t, err)
		var s string
		require.NoError(t, converter.GetDefaultDataConverter().FromPayload(dec, &s))
		require.Equal(t, "written before binding", s)
	}
	bound := encodeWith(t, inWorkflow(after, "default", "agent-a"), plain(t, "after rotation"))
	require.Equal(t, "k2", string(bound.Metadata[MetadataKeyID]))
	_, err := decodeWith(inWorkflow(after, "default", "agent-a"), bound)
	require.NoError(t, err)
}

// The SDK's data converter passes the context on to the codec: a value
// written for one workflow is refused for another.
func TestTheDataConverterBindsThroughTheSerializationContext(t *testing.T) {
	dc := NewDataConverter(newCodec(t, "", newKey(t, "k1")))
	forA := converter.WithDataConverterSerializationContext(dc, converter.WorkflowSerializationContext{Namespace: "ns", WorkflowID: "a"})
	forB := converter.WithDataConverterSerializationContext(dc, converter.WorkflowSerializationContext{Namespace: "ns", WorkflowID: "b"})
	actB := converter.WithDataConverterSerializationContext(dc, converter.ActivitySerializationContext{Namespace: "ns", WorkflowID: "b", ActivityType: "x"})
	p, err := forA.ToPayload("for a")
	require.NoError(t, err)

	var s string
	require.NoError(t, forA.FromPayload(p, &s))
	require.Equal(t, "for a", s)
	var be *BindingError
	require.ErrorAs(t, forB.FromPayload(p, &s), &be)
	require.ErrorAs(t, actB.FromPayload(p, &s), &be, "an activity of B refuses it too")
	require.NoError(t, dc.FromPayload(p, &s), "a history reader without context reads it")

	fromAct, err := actB.ToPayload("activity result")
	require.NoError(t, err)
	require.NoError(t, forB.FromPayload(fromAct, &s), "B's activities and B share the binding")
	require.ErrorAs(t, forA.FromPayload(fromAct, &s), &be)
}

// The codec server, which knows only the namespace, decodes bound payloads
// for the Web UI.
func TestTheCodecServerDecodesBoundPayloads(t *testing.T) {
	c := newCodec(t, "", newKey(t, "k1"))
	bound := encodeWith(t, inWorkflow(c, "default", "agent-a"), plain(t, "shown in the UI"))
	h, err := NewHandler(c, ServerOptions{Token: "0123456789abcdef-token"})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	body, err := json.Marshal(&commonpb.Payloads{Payloads: []*commonpb.Payload{bound}})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/default/decode", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer 0123456789abcdef-token")
	req.Header.Set("X-Namespace", "default")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var decoded commonpb.Payloads
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&decoded))
	require.Contains(t, string(decoded.GetPayloads()[0].GetData()), "shown in the UI")
}

// Associated data never collides across fields: moving bytes between the
// namespace and the workflow ID is another binding.
func TestBindingsOfShiftedFieldsDiffer(t *testing.T) {
	a := (&binding{namespace: "ab", workflowID: "c"}).associatedData("k")
	b := (&binding{namespace: "a", workflowID: "bc"}).associatedData("k")
	require.NotEqual(t, a, b)
	require.NotEqual(t, []byte("k"), a)
}
