package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"

	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/internal/cli"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// secrets are unique strings an agent's content is made of; none may
// appear in plaintext in the server's database once encryption is on.
type secrets struct {
	before, system, user, tool, file, resumed, followup, answer string
}

func newSecrets(t *testing.T) secrets {
	t.Helper()
	b := make([]byte, 6)
	_, err := rand.Read(b)
	require.NoError(t, err)
	r := hex.EncodeToString(b)
	return secrets{before: "PLAIN-BEFORE-" + r, system: "SYSTEM-PROMPT-" + r, user: "USER-MESSAGE-" + r,
		tool: "TOOL-RESULT-" + r, file: "FILE-CONTENT-" + r, resumed: "RESUMED-MESSAGE-" + r,
		followup: "FOLLOWUP-MESSAGE-" + r, answer: "STREAMED-ANSWER-" + r}
}

func (s secrets) encrypted() []string {
	return []string{s.system, s.user, s.tool, s.file, s.resumed, s.followup, s.answer}
}

// vaultTool is an ordinary (not local) tool activity returning a secret.
func vaultTool(secret string) tools.Tool {
	return tools.Tool{Name: "vault", Description: "Return the vault's content.",
		Run: func(context.Context, tools.Call) (tools.Result, error) { return tools.Result{Content: secret}, nil }}
}

func codecKey(t *testing.T, id string) string {
	t.Helper()
	b := make([]byte, codec.KeySize)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return id + ":" + base64.StdEncoding.EncodeToString(b)
}

// An agent started before encryption keeps working after it is turned on;
// with encryption on, a conversation with tool calls (activity and local),
// a streamed answer, Continue-As-New and a key rotation leaves no content
// in plaintext in the SQLite files, while the log, the projection, the
// token stream, the CLI and the Web UI's codec server all read it.
func TestEncryptedAgentsLeaveNoPlaintextInTheDatabase(t *testing.T) {
	dir, ws := t.TempDir(), t.TempDir()
	s := newSecrets(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "notes.txt"), []byte(s.file), 0o600))
	base := []string{"--dev", "--data-dir", dir, "--port", "0", "--workspace", ws, "--max-run-turns", "2"}
	ctx := ctxT(t, 3*time.Minute)
	k1, k2 := codecKey(t, "k1"), codecKey(t, "k2")

	// Before encryption: plaintext history, the scan's control.
	w := startDevWorker(t, append(base, "--ui-port", "0"), nil)
	before, err := agent.New(w.c, "").Create(ctx, agent.CreateOptions{ID: "before", First: s.before + "\n/say noted"})
	require.NoError(t, err)
	_, err = before.WaitIdle(ctx)
	require.NoError(t, err)
	w.stop(t)

	// Encryption on with k1, the Web UI pointed at the codec server.
	uiPort := freePort(t)
	w = startDevWorker(t, append(base, "--ui-port", strconv.Itoa(uiPort), "--codec-addr", "127.0.0.1:0"),
		map[string]string{codec.EnvKeys: k1}, vaultTool(s.tool))
	agents := agent.New(w.c, "", agent.WithDataConverter(w.dc))
	resumeOldAgent(ctx, t, agents, s)
	h, err := agents.Create(ctx, agent.CreateOptions{ID: "secret",
		Options: signals.AgentOptions{SystemPrompt: s.system, Tools: []string{"vault", "read_file"}},
		First:   s.user + "\n/tool vault {}\n/tool read_file {\"path\":\"notes.txt\"}"})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	log, err := h.Log(ctx)
	require.NoError(t, err)
	requireLogHolds(t, log, s.system, s.user, s.tool, s.file)

	history, err := projection.Fetch(ctx, w.c, h.ID, "")
	require.NoError(t, err)
	requireSameLogWithCodecOnly(t, w, log, history)
	requireUIDecodes(t, w, uiPort, history, s.system)
	w.stop(t)

	// Rotation: k2 encrypts, k1 still decrypts; the codec server wants a token.
	w = startDevWorker(t, append(base, "--ui-port", "0", "--codec-addr", "127.0.0.1:0"), map[string]string{
		codec.EnvKeys: k1 + "," + k2, codec.EnvKeyID: "k2", configfx.EnvCodecAuthToken: "tok"}, vaultTool(s.tool))
	agents = agent.New(w.c, "", agent.WithDataConverter(w.dc))
	h, err = agents.Attach(ctx, "secret")
	require.NoError(t, err)
	requireTokensStream(ctx, t, h, s)
	log, err = h.Log(ctx)
	require.NoError(t, err)
	runs, err := projection.FetchChain(ctx, w.c, h.ID)
	require.NoError(t, err)
	require.Len(t, runs, 2, "the run continued as new after turn 2")
	projected, err := projection.Using(w.dc).FromChain(runs...)
	require.NoError(t, err)
	requireSameLog(t, log, projected)
	require.Equal(t, "k1", keyID(runs[0][0]), "the first run was written under k1")
	require.Equal(t, "k2", keyID(runs[1][0]), "the seed after rotation is under k2")

	requireStarterReads(ctx, t, w, k1+","+k2, s)
	w.stop(t)

	raw := databaseBytes(t, dir)
	require.True(t, bytes.Contains(raw, []byte(s.before)), "the control: plaintext written before encryption is visible to the scan")
	for _, secret := range s.encrypted() {
		require.False(t, bytes.Contains(raw, []byte(secret)), "%s is in the database in plaintext", secret)
	}
}

// resumeOldAgent sends a message to the agent started before encryption:
// its plaintext history still decodes and it answers.
func resumeOldAgent(ctx context.Context, t *testing.T, agents *agent.Client, s secrets) {
	t.Helper()
	old, err := agents.Attach(ctx, "before")
	require.NoError(t, err)
	_, err = old.Followup(ctx, s.resumed+"\n/say still here", agent.Acknowledged())
	require.NoError(t, err)
	st, err := old.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, st.Turn)
	log, err := old.Log(ctx)
	require.NoError(t, err)
	requireLogHolds(t, log, s.before, s.resumed, "still here")
}

func requireLogHolds(t *testing.T, log []eventlog.Envelope, want ...string) {
	t.Helper()
	b, err := json.Marshal(log)
	require.NoError(t, err)
	for _, w := range want {
		require.Contains(t, string(b), w)
	}
}

// requireSameLogWithCodecOnly: the projection with the client's converter
// equals the log query; without it, the encrypted history does not decode.
func requireSameLogWithCodecOnly(t *testing.T, w *devWorker, log []eventlog.Envelope, history []*historypb.HistoryEvent) {
	t.Helper()
	projected, err := projection.Using(w.dc).FromHistory(history)
	require.NoError(t, err)
	requireSameLog(t, log, projected)
	_, err = projection.FromHistory(history)
	require.Error(t, err, "the default converter cannot read encrypted payloads")
}

// requireUIDecodes: the embedded Web UI is configured with the worker's
// codec server, which answers a decode from the UI's origin in plaintext.
func requireUIDecodes(t *testing.T, w *devWorker, uiPort int, history []*historypb.HistoryEvent, want string) {
	t.Helper()
	resp, err := http.Get(w.srv.UIAddress() + "/api/v1/settings")
	require.NoError(t, err)
	var settings struct{ Codec struct{ Endpoint string } }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&settings))
	resp.Body.Close()
	require.Equal(t, w.codec.URL, settings.Codec.Endpoint)

	input := history[0].GetWorkflowExecutionStartedEventAttributes().GetInput()
	require.True(t, codec.Encrypted(input.GetPayloads()[0]))
	body, err := json.Marshal(input)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, settings.Codec.Endpoint+"/decode", bytes.NewReader(body))
	require.NoError(t, err)
	origin := fmt.Sprintf("http://127.0.0.1:%d", uiPort)
	req.Header.Set("Origin", origin)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Namespace", w.srv.Namespace())
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, origin, resp.Header.Get("Access-Control-Allow-Origin"))
	var decoded commonpb.Payloads
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&decoded))
	require.Contains(t, string(decoded.GetPayloads()[0].GetData()), want)
}

// requireTokensStream: a streamed answer reaches a token subscriber,
// whose stream locator comes from encrypted heartbeat details.
func requireTokensStream(ctx context.Context, t *testing.T, h *agent.Handle, s secrets) {
	t.Helper()
	_, err := h.Followup(ctx, s.followup+"\n/say "+s.answer+strings.Repeat(" streamed", 20), agent.Acknowledged())
	require.NoError(t, err)
	var text strings.Builder
	for _, ev := range collect(t, ctx, h) {
		if ev.Kind == agent.TokenChunk {
			text.WriteString(ev.Chunk.Text)
		}
	}
	require.Contains(t, text.String(), "streamed streamed", "tokens arrived live")
}

// keyID is the codec key a run's start input was encrypted with.
func keyID(started *historypb.HistoryEvent) string {
	p := started.GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()[0]
	return string(p.GetMetadata()[codec.MetadataKeyID])
}

// requireStarterReads: the starter decodes with the worker's keys, or
// through the codec server a temporal.toml profile names (with its bearer
// token); with neither it cannot read the agent.
func requireStarterReads(ctx context.Context, t *testing.T, w *devWorker, keys string, s secrets) {
	t.Helper()
	run := func(env map[string]string) starterResult {
		var out, errOut bytes.Buffer
		st := cli.Starter{Out: &out, Err: &errOut, Dial: client.DialContext, Env: func(k string) string { return env[k] }}
		code := st.Run(ctx, []string{"--address", w.srv.HostPort(), "--namespace", w.srv.Namespace(), "log", "secret"})
		return starterResult{code: code, out: out.String(), err: errOut.String()}
	}
	t.Setenv("TEMPORAL_CONFIG_FILE", filepath.Join(t.TempDir(), "absent.toml"))
	requireExit(t, run(nil), 1)

	r := run(map[string]string{codec.EnvKeys: keys, codec.EnvKeyID: "k2"})
	requireExit(t, r, 0)
	require.Contains(t, r.out, s.user)
	require.Contains(t, r.out, s.tool)

	toml := filepath.Join(t.TempDir(), "temporal.toml")
	require.NoError(t, os.WriteFile(toml, []byte(fmt.Sprintf(
		"[profile.default.codec]\nendpoint = %q\nauth = \"Bearer tok\"\n", w.codec.URL)), 0o600))
	t.Setenv("TEMPORAL_CONFIG_FILE", toml)
	r = run(nil)
	requireExit(t, r, 0)
	require.Contains(t, r.out, s.answer)
}

// databaseBytes is every SQLite file of the data directory: the database,
// its write-ahead log and shared memory.
func databaseBytes(t *testing.T, dir string) []byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "temporal.db*"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var all []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		all = append(all, b...)
	}
	return all
}
