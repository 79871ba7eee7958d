package e2e

import (
	"bytes"
	"context"
	"encoding/hex"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/activities/stream"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/blobstore"
	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/internal/cli"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// blobClient dials the env's server as the worker does with --blob-dir
// and codec keys: payloads from threshold bytes (0: 256 KiB) live in d,
// encrypted. The converter returned resolves claims for projection.
func blobClient(t *testing.T, e *env, d *blobstore.Dir, keys string, threshold int) (client.Client, converter.DataConverter) {
	t.Helper()
	cfg, err := codec.KeySource{Inline: keys}.Load()
	require.NoError(t, err)
	opts := client.Options{ExternalStorage: blobstore.Storage(d, threshold)}
	dc, err := codec.Configure(&opts, cfg)
	require.NoError(t, err)
	c := e.ts.NewClientWithOptions(opts)
	return c, blobstore.Resolving(dc, d)
}

// startWorkerOn is startWorker on client c with registry reg, whose
// result cap the test chooses.
func (e *env) startWorkerOn(c client.Client, reg *tools.Registry) worker.Worker {
	e.t.Helper()
	reader := activities.NewLogReader(activities.WorkflowLog{Client: c}, 0)
	if e.hub == nil {
		e.hub = stream.NewHub(stream.HubOptions{})
		srv := httptest.NewServer(e.hub.Handler())
		e.t.Cleanup(func() { e.hub.Close(); srv.Close() })
		e.streamURL = srv.URL
	}
	model := &activities.Model{Streams: activities.HubStreams{Hub: e.hub, BaseURL: e.streamURL}, Providers: map[string]activities.Provider{scripted.Name: scripted.Provider{}},
		DefaultProvider: scripted.Name, Tools: reg, Log: reader, HeartbeatEvery: time.Second}
	tool := &activities.Tool{Runner: reg, Log: reader, HeartbeatEvery: time.Second}
	cfg := workerfx.WorkflowConfig(e.cfg, nil, reg)
	cfg.Snapshots = reader
	cfg.Feeds = model.Streams.(activities.HubStreams)
	cfg.Providers = []string{scripted.Name}
	w := worker.New(c, signals.TaskQueue, e.options())
	workflows.Register(w, cfg)
	activities.Register(w, model, tool)
	require.NoError(e.t, w.Start())
	e.t.Cleanup(w.Stop)
	return w
}

// bigTool returns size bytes that begin with marker.
func bigTool(name, marker string, size int) tools.Tool {
	content := marker + strings.Repeat("0123456789abcdef", size/16)[:size-len(marker)]
	return tools.Tool{Name: name, Description: "Return a large document.",
		Run: func(context.Context, tools.Call) (tools.Result, error) { return tools.Result{Content: content}, nil }}
}

// serverHistorySize is the run's history size as the server counts it.
func serverHistorySize(ctx context.Context, t *testing.T, c client.Client, id string) int {
	t.Helper()
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	return int(desc.GetWorkflowExecutionInfo().GetHistorySizeBytes())
}

// claims counts the storage references in a history.
func claims(t *testing.T, events []*historypb.HistoryEvent) int {
	t.Helper()
	n := 0
	for _, ev := range events {
		for _, p := range ev.GetActivityTaskCompletedEventAttributes().GetResult().GetPayloads() {
			if blobstore.IsReference(p) {
				n++
			}
		}
	}
	return n
}

// A tool's 1 MB result reaches the agent's log whole while history holds
// a claim: the history stays small, the blob on disk is ciphertext, and the
// log, the projection and `starter log` read the content.
func TestAToolResultOfAMegabyteLivesOutsideHistoryAndReadsWhole(t *testing.T) {
	e := newEnv(t)
	d, err := blobstore.NewDir(filepath.Join(t.TempDir(), "blobs"))
	require.NoError(t, err)
	key := codecKey(t, "k1")
	c, dc := blobClient(t, e, d, key, 0)
	marker := "WHOLE-DOCUMENT-" + hex.EncodeToString([]byte(t.Name()))[:12]
	reg, err := tools.NewRegistry(bigTool("document", marker, 1<<20))
	require.NoError(t, err)
	reg, err = reg.With(tools.WithMaxResultBytes(2 << 20))
	require.NoError(t, err)
	e.startWorkerOn(c, reg)

	ctx := ctxT(t, 2*time.Minute)
	agents := agent.New(c, "", agent.WithDataConverter(dc))
	h, err := agents.Create(ctx, agent.CreateOptions{ID: "big", Options: signals.AgentOptions{Tools: []string{"document"}},
		First: "read it\n/tool document {}"})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)

	log, err := h.Log(ctx)
	require.NoError(t, err)
	requireLogHolds(t, log, marker, strings.Repeat("0123456789abcdef", 100))
	requireWholeResult(t, log, 1<<20)

	history, err := projection.Fetch(ctx, c, h.ID, "")
	require.NoError(t, err)
	require.Equal(t, 1, claims(t, history), "the tool's result is a claim in history")
	require.Less(t, serverHistorySize(ctx, t, c, h.ID), 64<<10, "history holds claims, not the megabyte")
	projected, err := projection.Using(dc).FromHistory(history)
	require.NoError(t, err)
	requireSameLog(t, log, projected)
	_, err = projection.Using(converter.GetDefaultDataConverter()).FromHistory(history)
	require.Error(t, err, "the control: without the store the claim does not decode")

	requireBlobsAreCiphertext(t, d, marker, 1<<20)

	run := func(env map[string]string) starterResult {
		var out, errOut bytes.Buffer
		st := cli.Starter{Out: &out, Err: &errOut, Dial: client.DialContext, Env: func(k string) string { return env[k] }}
		code := st.Run(ctx, []string{"--address", e.ts.GetFrontendHostPort(), "--namespace", e.ts.GetDefaultNamespace(), "log", "big"})
		return starterResult{code: code, out: out.String(), err: errOut.String()}
	}
	t.Setenv("TEMPORAL_CONFIG_FILE", filepath.Join(t.TempDir(), "absent.toml"))
	r := run(map[string]string{codec.EnvKeys: key, blobstore.EnvDir: d.Path()})
	requireExit(t, r, 0)
	require.Contains(t, r.out, marker)
	r = run(map[string]string{codec.EnvKeys: key})
	require.NotZero(t, r.code)
	require.Contains(t, r.err, blobstore.EnvDir, "without the store, the starter says what to set")
}

// requireWholeResult: the log's tool result is size bytes, not cut.
func requireWholeResult(t *testing.T, log []eventlog.Envelope, size int) {
	t.Helper()
	results := ofType[eventlog.ToolResult](events(t, log))
	require.Len(t, results, 1)
	require.Len(t, results[0].Content, size, "the tool's result is whole")
}

// requireBlobsAreCiphertext: the store holds a blob over size, and no
// blob holds plaintext.
func requireBlobsAreCiphertext(t *testing.T, d *blobstore.Dir, marker string, size int) {
	t.Helper()
	files, err := os.ReadDir(d.Path())
	require.NoError(t, err)
	require.NotEmpty(t, files)
	big := 0
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(d.Path(), f.Name()))
		require.NoError(t, err)
		require.False(t, bytes.Contains(b, []byte(marker)), "blob %s holds plaintext", f.Name())
		require.False(t, bytes.Contains(b, []byte("0123456789abcdef0123456789abcdef")), "blob %s holds plaintext", f.Name())
		if len(b) > size {
			big++
		}
	}
	require.NotZero(t, big, "the store holds the result (and the log query's answer)")
}

// A blob missing when a new worker replays the agent fails that workflow
// task, which Temporal retries: the agent stays running with its history
// whole, and answers once the blob is back. Projection names the blob.
func TestAMissingBlobStallsTheAgentUntilItReturnsAndIsNamed(t *testing.T) {
	e := newEnv(t)
	d, err := blobstore.NewDir(filepath.Join(t.TempDir(), "blobs"))
	require.NoError(t, err)
	c, dc := blobClient(t, e, d, codecKey(t, "k1"), 0)
	reg, err := tools.NewRegistry(bigTool("document", "DOC", 600<<10))
	require.NoError(t, err)
	reg, err = reg.With(tools.WithMaxResultBytes(2 << 20))
	require.NoError(t, err)
	w := e.startWorkerOn(c, reg)

	ctx := ctxT(t, 3*time.Minute)
	agents := agent.New(c, "", agent.WithDataConverter(dc))
	h, err := agents.Create(ctx, agent.CreateOptions{ID: "lost", Options: signals.AgentOptions{Tools: []string{"document"}},
		First: "read it\n/tool document {}"})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	w.Stop()
	worker.PurgeStickyWorkflowCache()

	history, err := projection.Fetch(ctx, c, h.ID, "")
	require.NoError(t, err)
	require.Equal(t, 1, claims(t, history))
	files, err := os.ReadDir(d.Path())
	require.NoError(t, err)
	aside := t.TempDir()
	for _, f := range files {
		require.NoError(t, os.Rename(filepath.Join(d.Path(), f.Name()), filepath.Join(aside, f.Name())))
	}
	_, err = projection.Using(dc).FromHistory(history)
	require.ErrorIs(t, err, blobstore.ErrMissing)
	require.ErrorContains(t, err, d.Path())

	// A new worker must replay the history to take the followup, sent as
	// a signal: it is in history whatever the worker does with it.
	e.startWorkerOn(c, reg)
	_, err = h.Followup(ctx, "again\n/say still here", agent.Unacknowledged())
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		desc, err := c.DescribeWorkflowExecution(ctx, h.ID, "")
		require.NoError(t, err)
		require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, desc.GetWorkflowExecutionInfo().GetStatus())
		return desc.GetPendingWorkflowTask().GetAttempt() >= 2
	}, time.Minute, 100*time.Millisecond, "the workflow task that needs the blob fails and is retried")

	for _, f := range files {
		require.NoError(t, os.Rename(filepath.Join(aside, f.Name()), filepath.Join(d.Path(), f.Name())))
	}
	st, err := h.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, st.Turn)
	log, err := h.Log(ctx)
	require.NoError(t, err)
	requireLogHolds(t, log, "DOC", "still here")
	requireTaskFailureNames(ctx, t, c, dc, h.ID, d.Path())
}

// requireTaskFailureNames: the failed workflow task says which blob it
// could not read, where an operator looks first (the Web UI's history).
func requireTaskFailureNames(ctx context.Context, t *testing.T, c client.Client, dc converter.DataConverter, id, file string) {
	t.Helper()
	history, err := projection.Fetch(ctx, c, id, "")
	require.NoError(t, err)
	for _, ev := range history {
		if f := ev.GetWorkflowTaskFailedEventAttributes().GetFailure(); f != nil {
			var attrs struct{ Message string } // the codec encrypts a failure's message
			require.NoError(t, dc.FromPayload(f.GetEncodedAttributes(), &attrs))
			require.Contains(t, attrs.Message, "blob is missing")
			require.Contains(t, attrs.Message, file)
			return
		}
	}
	t.Fatal("no failed workflow task in history")
}

// The worker run with --dev keeps payloads over --blob-threshold in
// <data-dir>/blobs, encrypted when codec keys are set, and reads them back.
func TestADevWorkerKeepsLargePayloadsEncryptedInItsDataDir(t *testing.T) {
	dir := t.TempDir()
	key := codecKey(t, "k1")
	marker := "DEV-DOCUMENT-" + hex.EncodeToString([]byte(t.Name()))[:12]
	w := startDevWorker(t, []string{"--dev", "--data-dir", dir, "--port", "0", "--ui-port", "0", "--blob-threshold", "4096"},
		map[string]string{codec.EnvKeys: key}, bigTool("document", marker, 60<<10))
	ctx := ctxT(t, 2*time.Minute)
	h, err := agent.New(w.c, "", agent.WithDataConverter(w.dc)).Create(ctx, agent.CreateOptions{ID: "dev",
		Options: signals.AgentOptions{Tools: []string{"document"}}, First: "read it\n/tool document {}"})
	require.NoError(t, err)
	_, err = h.WaitIdle(ctx)
	require.NoError(t, err)
	log, err := h.Log(ctx)
	require.NoError(t, err)
	requireWholeResult(t, log, 60<<10)

	history, err := projection.Fetch(ctx, w.c, h.ID, "")
	require.NoError(t, err)
	require.Equal(t, 1, claims(t, history))
	projected, err := projection.Using(w.dc).FromHistory(history)
	require.NoError(t, err)
	requireSameLog(t, log, projected)
	d, err := blobstore.NewDir(filepath.Join(dir, "blobs"))
	require.NoError(t, err)
	requireBlobsAreCiphertext(t, d, marker, 60<<10)
}
