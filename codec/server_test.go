package codec

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

const (
	uiOrigin = "http://127.0.0.1:8233"
	token    = "s3cret-s3cret-s3cret"
	uiPath   = "/ui-0123456789abcdef0123"
)

var withToken = map[string]string{"Authorization": "Bearer " + token}

func newServer(t *testing.T, c *Codec, o ServerOptions) *httptest.Server {
	t.Helper()
	h, err := NewHandler(c, o)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func do(t *testing.T, method, url string, header map[string]string, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// payloadsJSON is a request body of the remote codec protocol.
func payloadsJSON(t *testing.T, ps ...*commonpb.Payload) string {
	t.Helper()
	b, err := json.Marshal(&commonpb.Payloads{Payloads: ps})
	require.NoError(t, err)
	return string(b)
}

func TestPreflightFromTheUIOriginAllowsTheHeadersTheUISends(t *testing.T) {
	srv := newServer(t, newCodec(t, "", newKey(t, "k1")), ServerOptions{Origins: []string{uiOrigin + "/"}, Token: token})
	resp := do(t, http.MethodOptions, srv.URL+"/default/decode", map[string]string{
		"Origin":                         uiOrigin,
		"Access-Control-Request-Method":  "POST",
		"Access-Control-Request-Headers": "content-type,x-namespace",
	}, "")
	require.Equal(t, http.StatusNoContent, resp.StatusCode, "preflight carries no token")
	require.Equal(t, uiOrigin, resp.Header.Get("Access-Control-Allow-Origin"))
	require.Equal(t, "true", resp.Header.Get("Access-Control-Allow-Credentials"))
	require.Contains(t, resp.Header.Get("Access-Control-Allow-Methods"), "POST")
	for _, h := range []string{"Authorization", "Content-Type", "X-Namespace"} {
		require.Contains(t, resp.Header.Get("Access-Control-Allow-Headers"), h)
	}
}

func TestRequestsFromOtherOriginsAreRefused(t *testing.T) {
	c := newCodec(t, "", newKey(t, "k1"))
	srv := newServer(t, c, ServerOptions{Origins: []string{uiOrigin}, Token: token, UIPath: uiPath})
	body := payloadsJSON(t, encode(t, c, plain(t, "secret"))...)
	for _, method := range []string{http.MethodOptions, http.MethodPost} {
		resp := do(t, method, srv.URL+uiPath+"/decode", map[string]string{"Origin": "https://evil.example"}, body)
		require.Equal(t, http.StatusForbidden, resp.StatusCode, method)
		require.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"), method)
	}
}

func TestBearerTokenIsRequired(t *testing.T) {
	c := newCodec(t, "", newKey(t, "k1"))
	srv := newServer(t, c, ServerOptions{Origins: []string{uiOrigin}, Token: token})
	body := payloadsJSON(t, encode(t, c, plain(t, "secret"))...)
	for name, auth := range map[string]string{"none": "", "wrong": "Bearer guess", "not bearer": token} {
		resp := do(t, http.MethodPost, srv.URL+"/decode", map[string]string{"Authorization": auth, "Origin": uiOrigin}, body)
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, name)
		require.Contains(t, resp.Header.Get("WWW-Authenticate"), "Bearer", name)
		require.Equal(t, uiOrigin, resp.Header.Get("Access-Control-Allow-Origin"), "the UI can read the 401")
	}
	resp := do(t, http.MethodPost, srv.URL+"/decode", withToken, body)
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestACodecServerWithoutATokenIsRefused(t *testing.T) {
	for _, tok := range []string{"", "                ", "\t\n"} {
		_, err := NewHandler(newCodec(t, "", newKey(t, "k1")), ServerOptions{Token: tok})
		require.ErrorIs(t, err, ErrNoToken, "%q", tok)
	}
}

func TestTheUIPathStandsInForTheTokenOnlyFromTheUIOrigin(t *testing.T) {
	c := newCodec(t, "", newKey(t, "k1"))
	srv := newServer(t, c, ServerOptions{Origins: []string{uiOrigin}, Token: token, UIPath: uiPath})
	body := payloadsJSON(t, encode(t, c, plain(t, "secret"))...)
	fromUI := map[string]string{"Origin": uiOrigin}
	resp := do(t, http.MethodPost, srv.URL+uiPath+"/decode", fromUI, body)
	require.Equal(t, http.StatusOK, resp.StatusCode, "the embedded UI decodes")
	for name, path := range map[string]string{
		"no UI path": "/decode", "another path": "/ui-0123456789abcdef0124/decode", "a prefix of it": uiPath[:10] + "/decode",
	} {
		resp := do(t, http.MethodPost, srv.URL+path, fromUI, body)
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, name)
	}
	resp = do(t, http.MethodPost, srv.URL+uiPath+"/decode", nil, body)
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "the path alone, from no browser, is not enough")

	for _, bad := range []string{"ui-0123456789abcdef", "/short", "/ui-0123456789abcdef/x"} {
		_, err := NewHandler(c, ServerOptions{Token: token, UIPath: bad})
		require.ErrorIs(t, err, ErrInvalidConfig, bad)
	}
}

func TestDecodeAnswersPlaintextAndEncodeAnswersCiphertext(t *testing.T) {
	c := newCodec(t, "", newKey(t, "k1"))
	srv := newServer(t, c, ServerOptions{Origins: []string{uiOrigin}, Token: token})
	in := plain(t, "what the operator reads")

	// The SDK's remote codec speaks the protocol the Web UI and CLI use.
	remote := converter.NewRemotePayloadCodec(converter.RemotePayloadCodecOptions{Endpoint: srv.URL + "/default",
		ModifyRequest: func(r *http.Request) error { r.Header.Set("Authorization", "Bearer "+token); return nil }})
	enc, err := remote.Encode([]*commonpb.Payload{in})
	require.NoError(t, err)
	require.True(t, Encrypted(enc[0]))
	require.NotContains(t, string(enc[0].Data), "operator reads")

	dec, err := remote.Decode(enc)
	require.NoError(t, err)
	require.Equal(t, in.Data, dec[0].Data)
	require.Equal(t, in.Metadata, dec[0].Metadata)

	resp := do(t, http.MethodPost, srv.URL+"/decode", map[string]string{"Origin": uiOrigin, "X-Namespace": "default",
		"Content-Type": "application/json", "Authorization": "Bearer " + token}, payloadsJSON(t, encode(t, c, in)...))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, uiOrigin, resp.Header.Get("Access-Control-Allow-Origin"))
	var out commonpb.Payloads
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	require.Equal(t, `"what the operator reads"`, string(out.Payloads[0].Data))
}

func TestDecodeOfAPayloadUnderAnUnknownKeyIsABadRequest(t *testing.T) {
	written := encode(t, newCodec(t, "", newKey(t, "retired")), plain(t, "x"))
	srv := newServer(t, newCodec(t, "", newKey(t, "current")), ServerOptions{Token: token})
	resp := do(t, http.MethodPost, srv.URL+"/decode", withToken, payloadsJSON(t, written...))
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

func TestMalformedOriginIsAConfigError(t *testing.T) {
	for _, origin := range []string{"127.0.0.1:8233", "http://ui.example/path", "ftp://ui.example", "*"} {
		_, err := NewHandler(newCodec(t, "", newKey(t, "k1")), ServerOptions{Origins: []string{origin}, Token: token})
		require.ErrorIs(t, err, ErrInvalidConfig, origin)
	}
}

func TestOnlyPostAndOptionsAreServed(t *testing.T) {
	srv := newServer(t, newCodec(t, "", newKey(t, "k1")), ServerOptions{Token: token})
	resp := do(t, http.MethodGet, srv.URL+"/decode", nil, "")
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
}
