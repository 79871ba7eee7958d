package codec

import (
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
)

// failureConverter is the SDK's default failure converter over dc, with
// message and stack trace encoded, that takes the SDK's serialization
// context: in a workflow's or an activity's context it encodes through dc
// in that context, so a failure's encoded attributes and details are bound
// to the workflow like every other payload (the SDK's default converter
// encodes them with no context, bound to none). An error a workflow
// returns as it received it (a child's failure, whole) keeps the binding
// it came with.
type failureConverter struct {
	dc                         converter.DataConverter
	converter.FailureConverter // without a context: bound to no workflow
}

var _ converter.FailureConverterWithSerializationContext = (*failureConverter)(nil)

func newFailureConverter(dc converter.DataConverter) *failureConverter {
	return &failureConverter{dc: dc, FailureConverter: defaultFailureConverter(dc)}
}

func defaultFailureConverter(dc converter.DataConverter) converter.FailureConverter {
	return temporal.NewDefaultFailureConverter(temporal.DefaultFailureConverterOptions{
		DataConverter: dc, EncodeCommonAttributes: true,
	})
}

// WithSerializationContext is the converter in ctx: the SDK's default
// over dc in ctx.
func (f *failureConverter) WithSerializationContext(ctx converter.SerializationContext) converter.FailureConverter {
	return defaultFailureConverter(converter.WithDataConverterSerializationContext(f.dc, ctx))
}
