package e2e

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/blobstore"
	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// The Web UI shows what history holds through the codec server: for a
// payload kept in the blob store, a claim, which /decode resolves to the
// blob and decrypts, bound to the workflow the request names and behind
// the bearer token as any payload. A missing blob is an error naming it.
func TestTheCodecServerShowsTheContentOfABlobClaim(t *testing.T) {
	dir := t.TempDir()
	marker := "UI-DOCUMENT-" + hex.EncodeToString([]byte(t.Name()))[:12]
	w := startDevWorker(t, []string{"--dev", "--data-dir", dir, "--port", "0", "--ui-port", "0",
		"--blob-threshold", "4096", "--codec-addr", "127.0.0.1:0"},
		map[string]string{codec.EnvKeys: codecKey(t, "k1"), configfx.EnvCodecAuthToken: "ui-token"},
		bigTool("document", marker, 60<<10))
	ctx := ctxT(t, 2*time.Minute)
	h, err := agent.New(w.c, "", agent.WithDataConverter(w.dc)).Create(ctx, agent.CreateOptions{ID: "shown",
		Options: signals.AgentOptions{Tools: []string{"document"}}, First: "read it\n/tool document {}"})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	history, err := projection.Fetch(ctx, w.c, h.ID, "")
	require.NoError(t, err)
	var claim *commonpb.Payload
	for _, ev := range history {
		for _, p := range ev.GetActivityTaskCompletedEventAttributes().GetResult().GetPayloads() {
			if blobstore.IsReference(p) {
				claim = p
			}
		}
	}
	require.NotNil(t, claim, "the tool's result is a claim in history")
	decode := func(token, workflowID string) (int, string) {
		body, err := json.Marshal(&commonpb.Payloads{Payloads: []*commonpb.Payload{claim}})
		require.NoError(t, err)
		req, err := http.NewRequest(http.MethodPost, w.codec.Base+"/"+w.srv.Namespace()+"/decode", bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set(codec.HeaderNamespace, w.srv.Namespace())
		if workflowID != "" {
			req.Header.Set(codec.HeaderWorkflowID, workflowID)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(out)
	}
	for _, id := range []string{"", h.ID} {
		code, body := decode("ui-token", id)
		require.Equal(t, http.StatusOK, code, body)
		var decoded commonpb.Payloads
		require.NoError(t, json.Unmarshal([]byte(body), &decoded))
		require.Len(t, decoded.GetPayloads(), 1)
		p := decoded.GetPayloads()[0]
		require.False(t, blobstore.IsReference(p), "the claim is resolved")
		require.False(t, codec.Encrypted(p), "and decrypted")
		require.Contains(t, string(p.GetData()), marker, "the UI sees the tool's whole result")
	}
	code, body := decode("wrong-token", h.ID)
	require.Equal(t, http.StatusUnauthorized, code, body)
	require.NotContains(t, body, marker)
	code, body = decode("ui-token", "another-agent")
	require.NotEqual(t, http.StatusOK, code, "a blob bound to one workflow does not decode as another's")
	require.NotContains(t, body, marker)

	ref, err := blobstore.ReferenceOf(claim)
	require.NoError(t, err)
	sum := ref.GetClaimData()[blobstore.ClaimSHA256]
	require.NoError(t, os.Remove(filepath.Join(dir, "blobs", sum)))
	code, body = decode("ui-token", h.ID)
	require.NotEqual(t, http.StatusOK, code)
	require.Contains(t, body, "blob is missing")
	require.Contains(t, body, "sha256:"+sum)
}
