package codec

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
)

func TestConfigureWithoutKeysOrRemoteCodecLeavesTheClientDefault(t *testing.T) {
	var opts client.Options
	dc, err := Configure(&opts, Config{})
	require.NoError(t, err)
	require.Nil(t, opts.DataConverter)
	require.Nil(t, opts.FailureConverter)
	require.Equal(t, converter.GetDefaultDataConverter(), dc)
}

func TestConfigureWithKeysEncryptsPayloadsAndFailureMessages(t *testing.T) {
	remote := converter.NewRemoteDataConverter(converter.GetDefaultDataConverter(),
		converter.RemoteDataConverterOptions{Endpoint: "http://127.0.0.1:1"})
	opts := client.Options{DataConverter: remote} // as envconfig sets it for a profile's codec
	dc, err := Configure(&opts, Config{Keys: []Key{newKey(t, "k1")}})
	require.NoError(t, err)
	require.Same(t, dc, opts.DataConverter, "the caller decodes with the client's converter")

	p, err := dc.ToPayload("local keys win over the profile's remote codec")
	require.NoError(t, err, "no request to the remote codec")
	require.True(t, Encrypted(p))

	f := opts.FailureConverter.ErrorToFailure(temporal.NewApplicationError("tool failed on secret.txt", "ToolError"))
	require.NotContains(t, f.GetMessage(), "secret.txt", "the message moves into the encoded attributes")
	require.True(t, Encrypted(f.GetEncodedAttributes()))
	back := opts.FailureConverter.FailureToError(f)
	var app *temporal.ApplicationError
	require.True(t, errors.As(back, &app))
	require.Equal(t, "tool failed on secret.txt", app.Message())
	require.Equal(t, "ToolError", app.Type())
}

func TestConfigureKeepsAProfilesRemoteCodecWhenNoKeysAreSet(t *testing.T) {
	remote := converter.NewRemoteDataConverter(converter.GetDefaultDataConverter(),
		converter.RemoteDataConverterOptions{Endpoint: "http://127.0.0.1:1"})
	opts := client.Options{DataConverter: remote}
	dc, err := Configure(&opts, Config{})
	require.NoError(t, err)
	require.Same(t, remote, dc)
	require.NotNil(t, opts.FailureConverter)
}

func TestConfigureRefusesInvalidKeys(t *testing.T) {
	var opts client.Options
	_, err := Configure(&opts, Config{Keys: []Key{{ID: "k1", Secret: []byte("short")}}})
	require.ErrorIs(t, err, ErrInvalidConfig)
	require.Nil(t, opts.DataConverter)
}
