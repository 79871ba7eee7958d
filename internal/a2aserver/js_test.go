package a2aserver

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
)

// TestTheJavaScriptSDKAsAThirdPartyClient runs testdata/js (node's test
// runner over @a2a-js/sdk, installed by npm ci from its lock file) against
// the live server, and fails with its output when a case fails: card
// discovery, send, stream with live tokens, resubscribe after a dropped
// stream, get, cancel, input-required then resume, a resend of one message
// ID, and a malformed request of each kind. Then it reads from Tether's
// side what the client did.
func TestTheJavaScriptSDKAsAThirdPartyClient(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the JavaScript SDK's test needs Node.js 18 or later and npm (.ci/run installs them)")
	}
	npm, err := exec.LookPath("npm")
	require.NoError(t, err, "node is installed but npm is not")
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "js"))))
	f := newFixture(t)
	env := append(os.Environ(), "A2A_URL="+f.url, "A2A_TOKEN="+token, "NO_COLOR=1")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	run := func(args ...string) string {
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Dir, cmd.Env, cmd.WaitDelay = dir, env, 5*time.Second
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		return out.String()
	}
	run(npm, "ci", "--no-audit", "--no-fund")
	out := run(npm, "test")
	t.Logf("npm test:\n%s", out)
	require.Contains(t, out, "# fail 0")

	// The README's JavaScript session, as written, with the address and
	// token it reads from the environment.
	env = append(env, "A2A="+f.url, "TETHER_A2A_TOKEN="+token)
	out = run("node", "session.mjs")
	require.Regexp(t, `(?s)^js-demo:[0-9a-f-]+ completed: .*42`, strings.TrimSpace(out))

	// What the client did is Tether's: the resent message is in the log
	// once, and the malformed requests reached no agent.
	h, err := f.agents.Attach(ctxT(t, 10*time.Second), "js-send")
	require.NoError(t, err)
	log, err := h.Log(ctxT(t, 10*time.Second))
	require.NoError(t, err)
	inserted := 0
	for _, env := range log {
		if e, err := eventlog.Decode(env); err == nil {
			if _, ok := e.(eventlog.InboxInserted); ok {
				inserted++
			}
		}
	}
	require.Equal(t, 2, inserted, "two messages and a resend: two messages in the log")
	u, err := f.agents.Attach(ctxT(t, 10*time.Second), "js-unharmed")
	require.NoError(t, err)
	st, err := u.Status(ctxT(t, 10*time.Second))
	require.NoError(t, err)
	require.Equal(t, 2, st.Turn)
}
