package codec

import (
	"encoding/binary"
	"errors"
	"fmt"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

// binding is the workflow a payload belongs to. A nil *binding is no
// workflow: a payload written before binding, or outside any workflow's
// context (the codec server's /encode, a history reader).
type binding struct {
	namespace, workflowID string
}

// boundPrefix starts the associated data of a bound payload, so it can
// never equal a version 1 payload's (its key ID, at most 64 characters of
// A-Z a-z 0-9 . _ -).
const boundPrefix = "tether-codec/bound\x00"

// associatedData is what GCM authenticates besides the ciphertext: the key
// ID alone for an unbound payload (version 1, unchanged), and for a bound
// one the prefix, then the key ID, namespace and workflow ID, each
// length-prefixed so no two bindings share a byte string.
func (b *binding) associatedData(keyID string) []byte {
	if b == nil {
		return []byte(keyID)
	}
	ad := []byte(boundPrefix)
	for _, f := range []string{keyID, b.namespace, b.workflowID} {
		ad = binary.AppendUvarint(ad, uint64(len(f)))
		ad = append(ad, f...)
	}
	return ad
}

// refused is the error of b's payload in want's context.
func (b *binding) refused(want *binding) *BindingError {
	if b == nil {
		return &BindingError{WantNamespace: want.namespace, WantWorkflowID: want.workflowID}
	}
	return &BindingError{Namespace: b.namespace, WorkflowID: b.workflowID, WantNamespace: want.namespace, WantWorkflowID: want.workflowID}
}

// mark writes the binding into an encrypted payload's metadata.
func (b *binding) mark(md map[string][]byte) {
	if b == nil {
		return
	}
	md[MetadataVersion] = []byte(VersionBound)
	md[MetadataNamespace] = []byte(b.namespace)
	md[MetadataWorkflowID] = []byte(b.workflowID)
}

// bindingOf reads an encrypted payload's binding from its metadata.
func bindingOf(p *commonpb.Payload) (*binding, error) {
	md := p.GetMetadata()
	v, ok := md[MetadataVersion]
	switch {
	case !ok:
		if _, ns := md[MetadataNamespace]; ns {
			return nil, errors.New("payload names a namespace but no encryption version")
		}
		if _, wf := md[MetadataWorkflowID]; wf {
			return nil, errors.New("payload names a workflow but no encryption version")
		}
		return nil, nil
	case string(v) != VersionBound:
		return nil, fmt.Errorf("unsupported encryption version %q", v)
	}
	return &binding{namespace: string(md[MetadataNamespace]), workflowID: string(md[MetadataWorkflowID])}, nil
}

var _ converter.PayloadCodecWithSerializationContext = (*Codec)(nil)

// WithSerializationContext is how the SDK tells the codec which workflow
// it encodes and decodes for: a workflow's own payloads (input, signals,
// updates, queries, memo, results, Continue-As-New), a child's (its ID),
// an external signal's (the target's ID), an activity's (its workflow's
// ID). The codec it returns binds what it encrypts to that namespace and
// workflow, and refuses to decrypt a payload bound to another one with a
// *BindingError; it still decrypts unbound payloads (written before
// binding, or by the codec server), so old histories stay readable. A
// context without a workflow ID (a standalone activity, Nexus) leaves c
// as it is.
func (c *Codec) WithSerializationContext(ctx converter.SerializationContext) converter.PayloadCodec {
	var b binding
	switch ctx := ctx.(type) {
	case converter.WorkflowSerializationContext:
		b = binding{namespace: ctx.Namespace, workflowID: ctx.WorkflowID}
	case converter.ActivitySerializationContext:
		b = binding{namespace: ctx.Namespace, workflowID: ctx.WorkflowID}
	}
	if b.workflowID == "" {
		return c
	}
	return &boundCodec{c: c, b: b}
}

// boundCodec is a Codec in one workflow's context.
type boundCodec struct {
	c *Codec
	b binding
}

func (bc *boundCodec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	return bc.c.encode(payloads, &bc.b)
}

func (bc *boundCodec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	return bc.c.decode(payloads, &bc.b)
}

// WithSerializationContext rebinds to another context.
func (bc *boundCodec) WithSerializationContext(ctx converter.SerializationContext) converter.PayloadCodec {
	return bc.c.WithSerializationContext(ctx)
}
