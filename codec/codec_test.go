package codec

import (
	"bytes"
	"crypto/rand"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

func newKey(t *testing.T, id string) Key {
	t.Helper()
	k := Key{ID: id, Secret: make([]byte, KeySize)}
	_, err := rand.Read(k.Secret)
	require.NoError(t, err)
	return k
}

func newCodec(t *testing.T, active string, keys ...Key) *Codec {
	t.Helper()
	c, err := New(Config{Keys: keys, ActiveKeyID: active})
	require.NoError(t, err)
	return c
}

// plain is a payload as the default data converter writes it.
func plain(t *testing.T, v any) *commonpb.Payload {
	t.Helper()
	p, err := converter.GetDefaultDataConverter().ToPayload(v)
	require.NoError(t, err)
	return p
}

func encode(t *testing.T, c *Codec, ps ...*commonpb.Payload) []*commonpb.Payload {
	t.Helper()
	out, err := c.Encode(ps)
	require.NoError(t, err)
	require.Len(t, out, len(ps))
	return out
}

func TestEncodeEncryptsUnderTheActiveKeyAndDecodeRestoresThePayload(t *testing.T) {
	c := newCodec(t, "", newKey(t, "k1"))
	in := plain(t, "the user's secret message")
	enc := encode(t, c, in)[0]

	require.Equal(t, EncodingEncrypted, string(enc.Metadata[MetadataEncoding]))
	require.Equal(t, "k1", string(enc.Metadata[MetadataKeyID]))
	require.NotContains(t, string(enc.Data), "secret message")
	require.NotContains(t, string(enc.Data), "json/plain", "the original metadata is encrypted too")

	dec, err := c.Decode([]*commonpb.Payload{enc})
	require.NoError(t, err)
	require.Equal(t, in.Metadata, dec[0].Metadata)
	require.Equal(t, in.Data, dec[0].Data)
}

func TestEveryEncodingUsesAFreshNonce(t *testing.T) {
	c := newCodec(t, "", newKey(t, "k1"))
	p := plain(t, "same")
	a, b := encode(t, c, p)[0], encode(t, c, p)[0]
	require.NotEqual(t, a.Data, b.Data)
	require.NotEqual(t, a.Data[:12], b.Data[:12], "the nonce prefix differs")
}

func TestDataEncryptedUnderAnOldKeyDecodesAfterANewActiveKeyIsAdded(t *testing.T) {
	old, next := newKey(t, "2025-01"), newKey(t, "2025-07")
	before := newCodec(t, "", old)
	written := encode(t, before, plain(t, "written before rotation"))[0]

	after := newCodec(t, "2025-07", old, next)
	require.Equal(t, "2025-07", after.ActiveKeyID())
	dec, err := after.Decode([]*commonpb.Payload{written})
	require.NoError(t, err)
	var s string
	require.NoError(t, converter.GetDefaultDataConverter().FromPayload(dec[0], &s))
	require.Equal(t, "written before rotation", s)

	fresh := encode(t, after, plain(t, "written after rotation"))[0]
	require.Equal(t, "2025-07", string(fresh.Metadata[MetadataKeyID]))
}

func TestPayloadUnderAKeyNotConfiguredIsAnUnknownKeyError(t *testing.T) {
	written := encode(t, newCodec(t, "", newKey(t, "retired")), plain(t, "x"))[0]
	_, err := newCodec(t, "", newKey(t, "current")).Decode([]*commonpb.Payload{written})
	var unknown *UnknownKeyError
	require.ErrorAs(t, err, &unknown)
	require.Equal(t, "retired", unknown.KeyID)
	require.Equal(t, []string{"current"}, unknown.Known)
	require.ErrorContains(t, err, `key "retired", which is not configured`)
}

func TestTamperedOrMisattributedCiphertextFailsToDecrypt(t *testing.T) {
	a, b := newKey(t, "a"), newKey(t, "b")
	c := newCodec(t, "a", a, b)
	enc := encode(t, c, plain(t, "integrity"))[0]

	flipped := &commonpb.Payload{Metadata: enc.Metadata, Data: bytes.Clone(enc.Data)}
	flipped.Data[len(flipped.Data)/2] ^= 0x01
	relabeled := &commonpb.Payload{Metadata: map[string][]byte{
		MetadataEncoding: []byte(EncodingEncrypted), MetadataKeyID: []byte("b"),
	}, Data: enc.Data}
	impostor := newCodec(t, "", Key{ID: "a", Secret: b.Secret}) // same ID, other key
	truncated := &commonpb.Payload{Metadata: enc.Metadata, Data: enc.Data[:10]}

	for name, tc := range map[string]struct {
		c *Codec
		p *commonpb.Payload
	}{
		"flipped byte":           {c, flipped},
		"key ID relabeled":       {c, relabeled},
		"other key under the ID": {impostor, enc},
		"shorter than a nonce":   {c, truncated},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tc.c.Decode([]*commonpb.Payload{tc.p})
			var de *DecryptError
			require.ErrorAs(t, err, &de)
		})
	}
}

func TestUnencryptedPayloadsDecodeUnchanged(t *testing.T) {
	c := newCodec(t, "", newKey(t, "k1"))
	old := plain(t, map[string]string{"from": "before encryption was enabled"})
	dec, err := c.Decode([]*commonpb.Payload{old})
	require.NoError(t, err)
	require.Same(t, old, dec[0])
}

func TestEncryptedPayloadsAreNotEncryptedTwice(t *testing.T) {
	k1, k2 := newKey(t, "k1"), newKey(t, "k2")
	once := encode(t, newCodec(t, "k1", k1, k2), plain(t, "once"))[0]
	again := encode(t, newCodec(t, "k2", k1, k2), once)[0]
	require.Same(t, once, again)
	require.Equal(t, "k1", string(again.Metadata[MetadataKeyID]))
}

func TestDataConverterRoundTripsValuesAndReadsPlaintextHistory(t *testing.T) {
	dc := NewDataConverter(newCodec(t, "", newKey(t, "k1")))
	type msg struct{ Content string }
	ps, err := dc.ToPayloads(msg{"hello"}, 42)
	require.NoError(t, err)
	for _, p := range ps.Payloads {
		require.True(t, Encrypted(p))
	}
	var m msg
	var n int
	require.NoError(t, dc.FromPayloads(ps, &m, &n))
	require.Equal(t, msg{"hello"}, m)
	require.Equal(t, 42, n)

	var s string
	require.NoError(t, dc.FromPayload(plain(t, "legacy"), &s))
	require.Equal(t, "legacy", s)
}

func TestEncryptedPayloadIsUnreadableWithoutTheCodec(t *testing.T) {
	dc := NewDataConverter(newCodec(t, "", newKey(t, "k1")))
	p, err := dc.ToPayload("secret")
	require.NoError(t, err)
	var s string
	require.Error(t, converter.GetDefaultDataConverter().FromPayload(p, &s))
}
