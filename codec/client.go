package codec

import (
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// NewDataConverter is the SDK's default data converter with c encrypting
// every payload it produces.
func NewDataConverter(c *Codec) converter.DataConverter {
	return converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), c)
}

// Configure sets the converters of opts and returns the data converter
// opts ends with (the SDK default when none is set), for the code that
// decodes payloads outside the client: projection and the token stream.
//
// With keys, payloads go through a local Codec, replacing any remote codec
// a temporal.toml profile put in opts.DataConverter (envconfig's
// IncludeRemoteCodec). With either, failure messages and stack traces are
// encoded too, so error text is not plaintext at rest either, and with
// keys a failure is bound to its workflow as its payloads are.
func Configure(opts *client.Options, keys Config) (converter.DataConverter, error) {
	if keys.Enabled() {
		c, err := New(keys)
		if err != nil {
			return nil, err
		}
		opts.DataConverter = NewDataConverter(c)
	}
	if opts.DataConverter == nil {
		return converter.GetDefaultDataConverter(), nil
	}
	opts.FailureConverter = newFailureConverter(opts.DataConverter)
	return opts.DataConverter, nil
}
