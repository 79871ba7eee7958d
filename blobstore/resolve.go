package blobstore

import (
	"context"
	"fmt"

	commonpb "go.temporal.io/api/common/v1"
	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/encoding/protojson"
)

// The SDK's storage reference: a payload of this encoding and message type
// holds a driver name and a claim instead of the data.
const (
	refEncoding = "json/protobuf"
	refLegacy   = "json/external-storage-reference"
)

var refMessageType = string((*sdkpb.ExternalStorageReference)(nil).ProtoReflect().Descriptor().FullName())

// IsReference reports whether p is a claim the SDK left in history in
// place of a payload kept outside it.
func IsReference(p *commonpb.Payload) bool {
	switch string(p.GetMetadata()[converter.MetadataEncoding]) {
	case refEncoding:
		return string(p.GetMetadata()[converter.MetadataMessageType]) == refMessageType
	case refLegacy:
		return true
	}
	return false
}

// Resolving wraps dc so that it decodes claims too: the SDK resolves them
// on the paths it owns (activity and workflow inputs and results, queries,
// updates), but a history read with GetWorkflowHistory keeps them, and
// projection decodes that history with this converter. Encoding is dc's.
func Resolving(dc converter.DataConverter, d *Dir) converter.DataConverter {
	if d == nil {
		return dc
	}
	return ResolvingWith(dc, d)
}

// ResolvingWith is Resolving over any store (nil: dc itself).
func ResolvingWith(dc converter.DataConverter, s converter.StorageDriver) converter.DataConverter {
	if s == nil {
		return dc
	}
	return resolving{DataConverter: dc, d: s}
}

type resolving struct {
	converter.DataConverter
	d converter.StorageDriver
}

var _ converter.DataConverterWithSerializationContext = resolving{}

func (r resolving) WithSerializationContext(sc converter.SerializationContext) converter.DataConverter {
	return resolving{DataConverter: converter.WithDataConverterSerializationContext(r.DataConverter, sc), d: r.d}
}

func (r resolving) resolve(p *commonpb.Payload) (*commonpb.Payload, error) {
	return resolveOne(context.Background(), r.d, p)
}

// ReferenceOf decodes the claim a reference payload holds (IsReference).
func ReferenceOf(p *commonpb.Payload) (*sdkpb.ExternalStorageReference, error) {
	var ref sdkpb.ExternalStorageReference
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(p.GetData(), &ref); err != nil {
		return nil, fmt.Errorf("decode storage reference: %w", err)
	}
	return &ref, nil
}

// resolveOne is p, or the payload s keeps for the claim p is.
func resolveOne(ctx context.Context, s converter.StorageDriver, p *commonpb.Payload) (*commonpb.Payload, error) {
	if !IsReference(p) {
		return p, nil
	}
	ref, err := ReferenceOf(p)
	if err != nil {
		return nil, err
	}
	if ref.GetDriverName() != s.Name() {
		return nil, fmt.Errorf("payload is kept by storage driver %q, not %q", ref.GetDriverName(), s.Name())
	}
	got, err := s.Retrieve(converter.StorageDriverRetrieveContext{Context: ctx},
		[]converter.StorageDriverClaim{{ClaimData: ref.GetClaimData()}})
	if err != nil {
		return nil, err
	}
	return got[0], nil
}

func (r resolving) FromPayload(p *commonpb.Payload, v any) error {
	p, err := r.resolve(p)
	if err != nil {
		return err
	}
	return r.DataConverter.FromPayload(p, v)
}

func (r resolving) FromPayloads(ps *commonpb.Payloads, vs ...any) error {
	if ps == nil {
		return r.DataConverter.FromPayloads(ps, vs...)
	}
	out := &commonpb.Payloads{Payloads: make([]*commonpb.Payload, len(ps.GetPayloads()))}
	for i, p := range ps.GetPayloads() {
		rp, err := r.resolve(p)
		if err != nil {
			return err
		}
		out.Payloads[i] = rp
	}
	return r.DataConverter.FromPayloads(out, vs...)
}

func (r resolving) ToString(p *commonpb.Payload) string {
	if rp, err := r.resolve(p); err == nil {
		p = rp
	}
	return r.DataConverter.ToString(p)
}

func (r resolving) ToStrings(ps *commonpb.Payloads) []string {
	out := make([]string, len(ps.GetPayloads()))
	for i, p := range ps.GetPayloads() {
		out[i] = r.ToString(p)
	}
	return out
}
