package codec

import (
	"crypto/aes"
	"crypto/cipher"
	"fmt"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"
)

// Payload metadata of an encrypted payload. The metadata is not encrypted
// (the server needs none of it), but all of it is authenticated: GCM's
// associated data holds the key ID and, in a bound payload, the binding.
const (
	MetadataEncoding  = converter.MetadataEncoding // "encoding"
	EncodingEncrypted = "binary/encrypted"
	MetadataKeyID     = "encryption-key-id"
	// MetadataVersion is absent in a payload written before binding
	// (version 1, authenticated with its key ID only) and VersionBound in
	// one bound to its workflow.
	MetadataVersion = "encryption-version"
	VersionBound    = "2"
	// MetadataNamespace and MetadataWorkflowID name the workflow a bound
	// payload belongs to.
	MetadataNamespace  = "encryption-namespace"
	MetadataWorkflowID = "encryption-workflow-id"
)

// Codec is an AES-256-GCM converter.PayloadCodec. It is safe for
// concurrent use and immutable after New.
type Codec struct {
	active string
	aeads  map[string]cipher.AEAD
	ids    []string // configured IDs in configuration order, for errors
	// requireBinding refuses unbound payloads in a workflow's context
	// (Config.RequireBinding).
	requireBinding bool
}

var _ converter.PayloadCodec = (*Codec)(nil)

// New validates cfg and returns its codec.
func New(cfg Config) (*Codec, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !cfg.Enabled() {
		return nil, fmt.Errorf("%w: no keys configured", ErrInvalidConfig)
	}
	active, _ := cfg.active()
	c := &Codec{active: active, aeads: map[string]cipher.AEAD{}, requireBinding: cfg.RequireBinding}
	for _, k := range cfg.Keys {
		block, err := aes.NewCipher(k.Secret)
		if err != nil {
			return nil, fmt.Errorf("%w: key %q: %v", ErrInvalidConfig, k.ID, err)
		}
		aead, err := cipher.NewGCMWithRandomNonce(block) // a fresh nonce per Seal
		if err != nil {
			return nil, fmt.Errorf("%w: key %q: %v", ErrInvalidConfig, k.ID, err)
		}
		c.aeads[k.ID] = aead
		c.ids = append(c.ids, k.ID)
	}
	return c, nil
}

// ActiveKeyID is the ID of the key Encode uses.
func (c *Codec) ActiveKeyID() string { return c.active }

// Encrypted reports whether p carries the encrypted marker.
func Encrypted(p *commonpb.Payload) bool {
	return string(p.GetMetadata()[MetadataEncoding]) == EncodingEncrypted
}

// Encode encrypts each payload under the active key; already encrypted
// payloads are returned as they are. Payloads are bound to no workflow: a
// codec the SDK gives a workflow's context (WithSerializationContext) binds
// them.
func (c *Codec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	return c.encode(payloads, nil)
}

// Decode decrypts each encrypted payload with the key it names, whatever
// workflow it is bound to (the codec server's and a history reader's
// view); payloads without the encrypted marker are returned as they are.
func (c *Codec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	return c.decode(payloads, nil)
}

func (c *Codec) encode(payloads []*commonpb.Payload, b *binding) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		if Encrypted(p) {
			out[i] = p
			continue
		}
		plain, err := proto.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("encrypt payload: %w", err)
		}
		md := map[string][]byte{
			MetadataEncoding: []byte(EncodingEncrypted),
			MetadataKeyID:    []byte(c.active),
		}
		b.mark(md)
		out[i] = &commonpb.Payload{Metadata: md, Data: c.aeads[c.active].Seal(nil, nil, plain, b.associatedData(c.active))}
	}
	return out, nil
}

func (c *Codec) decode(payloads []*commonpb.Payload, want *binding) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		if !Encrypted(p) {
			out[i] = p
			continue
		}
		dec, err := c.decrypt(p, want)
		if err != nil {
			return nil, err
		}
		out[i] = dec
	}
	return out, nil
}

// decrypt opens p; with want set, only if p is bound to that workflow or
// (unless the codec requires binding) to none.
func (c *Codec) decrypt(p *commonpb.Payload, want *binding) (*commonpb.Payload, error) {
	id := string(p.GetMetadata()[MetadataKeyID])
	aead, ok := c.aeads[id]
	if !ok {
		return nil, &UnknownKeyError{KeyID: id, Known: c.ids}
	}
	b, err := bindingOf(p)
	if err != nil {
		return nil, &DecryptError{KeyID: id, Err: err}
	}
	if want != nil && ((b != nil && *b != *want) || (b == nil && c.requireBinding)) {
		return nil, b.refused(want)
	}
	plain, err := aead.Open(nil, nil, p.GetData(), b.associatedData(id))
	if err != nil {
		return nil, &DecryptError{KeyID: id, Err: err}
	}
	var dec commonpb.Payload
	if err := proto.Unmarshal(plain, &dec); err != nil {
		return nil, &DecryptError{KeyID: id, Err: fmt.Errorf("decrypted bytes are not a payload: %w", err)}
	}
	return &dec, nil
}
