package devserver

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

func TestUIServesPageAndAPIAndStopsWithServer(t *testing.T) {
	s, err := Start(testContext(t), Options{Namespace: "ui-test", UIPort: -1})
	require.NoError(t, err)
	addr := s.UIAddress()
	require.True(t, strings.HasPrefix(addr, "http://127.0.0.1:"), addr)

	resp, body := get(t, addr)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Content-Type"), "text/html")
	require.Contains(t, strings.ToLower(body), "<!doctype html")

	resp, body = get(t, addr+"/api/v1/namespaces/ui-test/workflows")
	require.Equal(t, http.StatusOK, resp.StatusCode, body)

	require.NoError(t, s.Stop())
	require.NoError(t, s.Stop(), "Stop is idempotent")
	_, err = http.Get(addr)
	require.Error(t, err, "UI still serving after Stop")
}

func TestNoUIByDefault(t *testing.T) {
	s := startServer(t, Options{})
	require.Empty(t, s.UIAddress())
	require.Equal(t, "default", s.Namespace())
}

func TestUIDecodesPayloadsWithTheConfiguredCodecServer(t *testing.T) {
	s := startServer(t, Options{UIPort: -1, CodecEndpoint: "http://127.0.0.1:8234"})
	resp, body := get(t, s.UIAddress()+"/api/v1/settings")
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	var settings struct{ Codec struct{ Endpoint string } }
	require.NoError(t, json.Unmarshal([]byte(body), &settings))
	require.Equal(t, "http://127.0.0.1:8234", settings.Codec.Endpoint)
}

func TestTheUIRefusesAForeignHostSoARebindingPageGetsNoCSRFCookie(t *testing.T) {
	s := startServer(t, Options{UIPort: -1, CodecEndpoint: "http://127.0.0.1:8234/ui-secret-secret-secret"})
	for _, path := range []string{"/", "/api/v1/settings", "/api/v1/namespaces/default/workflows"} {
		req, err := http.NewRequest(http.MethodGet, s.UIAddress()+path, nil)
		require.NoError(t, err)
		req.Host = "rebound.evil.example:8233"
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusMisdirectedRequest, resp.StatusCode, path)
		require.Empty(t, resp.Cookies(), path)
		require.NotContains(t, string(body), "ui-secret", path)
	}
	req, err := http.NewRequest(http.MethodPost, s.UIAddress()+"/api/v1/namespaces/default/workflows/x/signal/y", strings.NewReader("{}"))
	require.NoError(t, err)
	req.Header.Set("Origin", "https://evil.example")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode, "a foreign page's write")

	resp, body := get(t, "http://localhost:"+s.UIAddress()[len("http://127.0.0.1:"):]+"/api/v1/settings")
	require.Equal(t, http.StatusOK, resp.StatusCode, "the loopback name serves: %s", body)
}
