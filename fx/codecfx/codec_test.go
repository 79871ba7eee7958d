package codecfx

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/fx/fxtest"

	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/internal/startup"
)

const testKey = "k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

func load(t *testing.T, args []string, env map[string]string) configfx.Config {
	t.Helper()
	cfg, err := configfx.Load(args, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	return cfg
}

func start(t *testing.T, cfg configfx.Config) (Endpoint, error) {
	t.Helper()
	lc := fxtest.NewLifecycle(t)
	e, err := New(Params{Config: cfg.Codec, Dev: cfg.DevPart(), Lifecycle: lc, Logger: slog.New(slog.DiscardHandler)})
	if err == nil {
		lc.RequireStart()
		t.Cleanup(func() { lc.RequireStop() })
	}
	return e, err
}

func decode(t *testing.T, url string, header map[string]string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(`{"payloads":[]}`)))
	require.NoError(t, err)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

func TestWithoutATokenTheDevCodecServerDrawsOneAndAnswersNoOneWithout(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o700)) // as the embedded server leaves it
	cfg := load(t, []string{"--dev", "--data-dir", dir, "--ui-port", "9233", "--codec-addr", "127.0.0.1:0"},
		map[string]string{codec.EnvKeys: testKey})
	e, err := start(t, cfg)
	require.NoError(t, err)

	require.Equal(t, http.StatusUnauthorized, decode(t, e.Base+"/decode", nil), "POST /decode without the token")
	require.Equal(t, http.StatusUnauthorized, decode(t, e.Base+"/default/decode", map[string]string{"Origin": "http://127.0.0.1:9233"}),
		"the UI's origin without its path")

	b, err := os.ReadFile(filepath.Join(dir, TokenFile))
	require.NoError(t, err)
	fi, err := os.Stat(filepath.Join(dir, TokenFile))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	token := strings.TrimSpace(string(b))
	require.GreaterOrEqual(t, len(token), codec.MinTokenBytes)
	require.Equal(t, http.StatusOK, decode(t, e.Base+"/decode", map[string]string{"Authorization": "Bearer " + token}))

	require.True(t, strings.HasPrefix(e.URL, e.Base+"/ui-"), "the embedded UI gets a secret path: %s", e.URL)
	require.Equal(t, http.StatusOK, decode(t, e.URL+"/decode", map[string]string{"Origin": "http://127.0.0.1:9233"}))
	require.Equal(t, http.StatusForbidden, decode(t, e.URL+"/decode", map[string]string{"Origin": "http://evil.example"}))
}

func TestAConfiguredTokenIsTheOneRequired(t *testing.T) {
	cfg := load(t, []string{"--codec-addr", "127.0.0.1:0"},
		map[string]string{codec.EnvKeys: testKey, configfx.EnvCodecAuthToken: "an-operator-codec-token"})
	e, err := start(t, cfg)
	require.NoError(t, err)
	require.Equal(t, e.Base, e.URL, "no embedded UI, no UI path")
	require.Equal(t, http.StatusUnauthorized, decode(t, e.Base+"/decode", nil))
	require.Equal(t, http.StatusOK, decode(t, e.Base+"/decode", map[string]string{"Authorization": "Bearer an-operator-codec-token"}))
}

func TestBeyondLoopbackWithoutATokenTheWorkerRefusesToStart(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		cfg := load(t, []string{"--codec-addr", addr}, map[string]string{codec.EnvKeys: testKey})
		_, err := start(t, cfg)
		var se *startup.Error
		require.ErrorAs(t, err, &se, addr)
		require.Contains(t, startup.Explain(err), "set "+configfx.EnvCodecAuthToken, addr)
	}
}

func TestAForeignHostIsRefused(t *testing.T) {
	cfg := load(t, []string{"--codec-addr", "127.0.0.1:0"},
		map[string]string{codec.EnvKeys: testKey, configfx.EnvCodecAuthToken: "an-operator-codec-token"})
	e, err := start(t, cfg)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, e.Base+"/decode", bytes.NewReader([]byte(`{"payloads":[]}`)))
	require.NoError(t, err)
	req.Host = "rebound.evil.example:8234"
	req.Header.Set("Authorization", "Bearer an-operator-codec-token")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMisdirectedRequest, resp.StatusCode)
}

// Issue 20: the drawn token never lands where another user may read it:
// not in an old token file an earlier release left 0644, nor through a
// descriptor someone opened on that file before the data dir was private.
func TestTheDrawnTokenGoesToAFreshFileOnlyItsOwnerReads(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o700))
	path := filepath.Join(dir, TokenFile)
	require.NoError(t, os.WriteFile(path, []byte("stale-token\n"), 0o644))
	require.NoError(t, os.Chmod(path, 0o644))
	held, err := os.Open(path)
	require.NoError(t, err)
	defer held.Close()

	cfg := load(t, []string{"--dev", "--data-dir", dir, "--ui-port", "0", "--codec-addr", "127.0.0.1:0"},
		map[string]string{codec.EnvKeys: testKey})
	e, err := start(t, cfg)
	require.NoError(t, err)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	token := strings.TrimSpace(string(b))
	require.Equal(t, http.StatusOK, decode(t, e.Base+"/decode", map[string]string{"Authorization": "Bearer " + token}))

	seen, err := io.ReadAll(held)
	require.NoError(t, err)
	require.Equal(t, "stale-token\n", string(seen), "the old file, open elsewhere, never holds the new token")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left beside it")
}
