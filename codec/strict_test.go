package codec

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	failurepb "go.temporal.io/api/failure/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/proto"
)

// The key rotation's last step: once no history holds unbound payloads, a
// workflow refuses them; readers without a context still decrypt them.
func TestRequireBindingRefusesUnboundPayloadsInAWorkflowsContextOnly(t *testing.T) {
	k1 := newKey(t, "k1")
	old := encodeWith(t, newCodec(t, "", k1), plain(t, "written before binding"))

	_, err := decodeWith(inWorkflow(newCodec(t, "", k1), "default", "agent-b"), old)
	require.NoError(t, err, "by default old histories stay readable")

	strict, err := New(Config{Keys: []Key{k1}, RequireBinding: true})
	require.NoError(t, err)
	_, err = decodeWith(inWorkflow(strict, "default", "agent-b"), old)
	var be *BindingError
	require.ErrorAs(t, err, &be)
	require.Equal(t, BindingError{WantNamespace: "default", WantWorkflowID: "agent-b"}, *be)
	require.ErrorContains(t, err, "bound to no workflow")
	require.ErrorContains(t, err, EnvRequireBinding)

	dec, err := decodeWith(strict, old)
	require.NoError(t, err, "the codec server and history readers still read it")
	require.Equal(t, plain(t, "written before binding").Data, dec.Data)

	bound := encodeWith(t, inWorkflow(strict, "default", "agent-b"), plain(t, "bound"))
	_, err = decodeWith(inWorkflow(strict, "default", "agent-b"), bound)
	require.NoError(t, err)
	_, err = decodeWith(inWorkflow(strict, "default", "agent-a"), bound)
	require.ErrorAs(t, err, &be)
}

func TestRequireBindingComesFromTheEnvironmentAndNeedsKeys(t *testing.T) {
	entry := func(k Key) string { return k.ID + ":" + b64(k) }
	k := newKey(t, "k1")
	env := map[string]string{EnvKeys: entry(k), EnvRequireBinding: "true"}
	cfg, err := SourceFromEnv(func(n string) string { return env[n] }).Load()
	require.NoError(t, err)
	require.True(t, cfg.RequireBinding)

	cfg, err = KeySource{Inline: entry(k)}.Load()
	require.NoError(t, err)
	require.False(t, cfg.RequireBinding, "off by default")

	_, err = KeySource{Inline: entry(k), RequireBinding: "strictly"}.Load()
	require.ErrorIs(t, err, ErrInvalidConfig)
	require.ErrorContains(t, err, EnvRequireBinding+`="strictly": want true or false`)
	_, err = KeySource{RequireBinding: "true"}.Load()
	require.ErrorContains(t, err, EnvRequireBinding+" set but no keys configured")
}

// failureIn is the client's failure converter in workflow id's context, as
// the SDK gives it to a workflow, its activities and its callers.
func failureIn(fc converter.FailureConverter, id string) converter.FailureConverter {
	return converter.WithFailureConverterSerializationContext(fc, converter.WorkflowSerializationContext{Namespace: "default", WorkflowID: id})
}

// Issue 20: a failure's message is bound to its workflow like its payloads,
// so a failure copied into another workflow is not read there.
func TestFailuresAreBoundToTheirWorkflow(t *testing.T) {
	var opts client.Options
	_, err := Configure(&opts, Config{Keys: []Key{newKey(t, "k1")}})
	require.NoError(t, err)
	fc := opts.FailureConverter

	f := failureIn(fc, "child").ErrorToFailure(temporal.NewApplicationError("the child's secret reason", "ChildFailed", "a secret detail"))
	require.True(t, Encrypted(f.GetEncodedAttributes()))
	require.Equal(t, "child", string(f.GetEncodedAttributes().GetMetadata()[MetadataWorkflowID]))
	details := f.GetApplicationFailureInfo().GetDetails().GetPayloads()
	require.Equal(t, "child", string(details[0].GetMetadata()[MetadataWorkflowID]))

	read := func(fc converter.FailureConverter) (*temporal.ApplicationError, error) {
		var app *temporal.ApplicationError
		require.True(t, errors.As(fc.FailureToError(proto.Clone(f).(*failurepb.Failure)), &app)) // it decodes in place
		var detail string
		return app, app.Details(&detail)
	}
	app, err := read(failureIn(fc, "child"))
	require.NoError(t, err)
	require.Equal(t, "the child's secret reason", app.Message(), "read in its own workflow's context: a parent reading its child's")
	app, err = read(fc)
	require.NoError(t, err, "history readers read every binding")
	require.Equal(t, "the child's secret reason", app.Message())

	app, err = read(failureIn(fc, "another"))
	require.Equal(t, "Encoded failure", app.Message(), "another workflow does not decrypt it")
	require.Equal(t, "ChildFailed", app.Type(), "the type, never encrypted, still tells what failed")
	var be *BindingError
	require.ErrorAs(t, err, &be, "nor its details")
}

// Failures written before binding (the SDK's default converter, no
// context) read in every workflow by default, and not once binding is
// required.
func TestUnboundFailuresReadEverywhereUnlessBindingIsRequired(t *testing.T) {
	k := newKey(t, "k1")
	old := defaultFailureConverter(NewDataConverter(newCodec(t, "", k))).ErrorToFailure(errors.New("an old failure"))
	require.True(t, Encrypted(old.GetEncodedAttributes()))
	require.NotContains(t, old.GetEncodedAttributes().GetMetadata(), MetadataVersion)

	var opts client.Options
	_, err := Configure(&opts, Config{Keys: []Key{k}})
	require.NoError(t, err)
	fresh := func() *failurepb.Failure { return proto.Clone(old).(*failurepb.Failure) } // it decodes in place
	require.EqualError(t, failureIn(opts.FailureConverter, "any").FailureToError(fresh()), "an old failure")

	_, err = Configure(&opts, Config{Keys: []Key{k}, RequireBinding: true})
	require.NoError(t, err)
	require.EqualError(t, failureIn(opts.FailureConverter, "any").FailureToError(fresh()), "Encoded failure")
	require.EqualError(t, opts.FailureConverter.FailureToError(fresh()), "an old failure", "readers without a context still read it")
}

// /encode binds to the workflow a request names, and a codec that
// requires binding makes no unbound payload.
func TestTheCodecServerBindsEncodeToTheWorkflowARequestNames(t *testing.T) {
	k := newKey(t, "k1")
	c := newCodec(t, "", k)
	srv := newServer(t, c, ServerOptions{Origins: []string{uiOrigin}, Token: token})
	post := func(path string, header map[string]string, ps ...*commonpb.Payload) (int, []*commonpb.Payload) {
		h := map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + token}
		for n, v := range header {
			h[n] = v
		}
		resp := do(t, http.MethodPost, srv.URL+path, h, payloadsJSON(t, ps...))
		var out commonpb.Payloads
		if resp.StatusCode == http.StatusOK {
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		}
		return resp.StatusCode, out.Payloads
	}
	pre := do(t, http.MethodOptions, srv.URL+"/default/encode", map[string]string{"Origin": uiOrigin}, "")
	require.Contains(t, pre.Header.Get("Access-Control-Allow-Headers"), HeaderWorkflowID)
	forB := map[string]string{HeaderNamespace: "default", HeaderWorkflowID: "agent-b"}
	code, enc := post("/default/encode", forB, plain(t, "a signal for B"))
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "agent-b", string(enc[0].GetMetadata()[MetadataWorkflowID]))
	_, err := decodeWith(inWorkflow(c, "default", "agent-b"), enc[0])
	require.NoError(t, err)
	_, err = decodeWith(inWorkflow(c, "default", "agent-a"), enc[0])
	require.Error(t, err, "bound to B: refused by A")

	code, _ = post("/default/decode", map[string]string{HeaderNamespace: "default", HeaderWorkflowID: "agent-a"}, enc...)
	require.Equal(t, http.StatusBadRequest, code, "decoding as A refuses B's payload")
	code, dec := post("/default/decode", forB, enc...)
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, `"a signal for B"`, string(dec[0].GetData()))

	code, enc = post("/default/encode", map[string]string{HeaderNamespace: "default"}, plain(t, "unbound"))
	require.Equal(t, http.StatusOK, code)
	require.NotContains(t, enc[0].GetMetadata(), MetadataVersion, "naming no workflow binds to none (the Web UI, the CLI)")
	code, _ = post("/default/encode", map[string]string{HeaderWorkflowID: "agent-b"}, plain(t, "x"))
	require.Equal(t, http.StatusBadRequest, code, "a workflow without its namespace is refused")

	strict, err := New(Config{Keys: []Key{k}, RequireBinding: true})
	require.NoError(t, err)
	srv = newServer(t, strict, ServerOptions{Token: token})
	code, _ = post("/default/encode", map[string]string{HeaderNamespace: "default"}, plain(t, "unbound"))
	require.Equal(t, http.StatusBadRequest, code, "every workflow would refuse an unbound payload")
	code, _ = post("/default/encode", forB, plain(t, "bound"))
	require.Equal(t, http.StatusOK, code)
	code, _ = post("/default/decode", map[string]string{HeaderNamespace: "default"}, encodeWith(t, c, plain(t, "old")))
	require.Equal(t, http.StatusOK, code, "the operator still reads old payloads")
}
