package typescript_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
)

// packageFiles are what `npm ci && npm test` needs of clients/typescript.
var packageFiles = []string{"package.json", "package-lock.json", "tsconfig.json", "src", "test", "scripts"}

// TestTypeScriptClientAgainstALiveTether runs the TypeScript client's own
// tests (npm test) against an embedded Temporal server and Tether workers
// on the scripted model (one streaming its calls to a live feed, one with
// codec keys), and fails with npm's output when they fail. Then it checks
// what the TypeScript codec encoded with the Go codec, stops the workers
// and compares the log the TypeScript client folds from each agent's
// history with the Go projection's, and installs the packed package into
// an empty project.
func TestTypeScriptClientAgainstALiveTether(t *testing.T) {
	npm := requireNode(t)
	dir := copyPackage(t)
	e := startTether(t)
	schema, err := filepath.Abs(filepath.Join("..", "..", "schema", "tether.schema.json"))
	require.NoError(t, err)
	out := t.TempDir()
	fixture := writeCodecFixture(t, e, out)
	env := append(os.Environ(), "TETHER_ADDRESS="+e.address, "TETHER_NAMESPACE="+e.namespace,
		"TETHER_TASK_QUEUE="+signals.TaskQueue, "TETHER_SCHEMA="+schema, "NO_COLOR=1",
		"TETHER_CODEC_QUEUE="+codecQueue, "TETHER_CODEC_KEYS="+e.codecSpec(),
		"TETHER_CODEC_FIXTURE="+fixture, "TETHER_OUT="+out)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	runNpm(ctx, t, npm, dir, env, "ci", "--no-audit", "--no-fund")
	runNpm(ctx, t, npm, dir, env, "test")
	requireGoDecodes(t, e, filepath.Join(out, "ts-encoded.json"))
	requireSameLogFromHistory(ctx, t, e, dir, env)
	requireInstallable(ctx, t, npm, dir, env)
}

// codecPayload is a payload in the fixtures' JSON: metadata values and
// data in base64.
type codecPayload struct {
	Metadata map[string][]byte `json:"metadata"`
	Data     []byte            `json:"data"`
}

func toJSONPayload(p *commonpb.Payload) codecPayload {
	return codecPayload{Metadata: p.GetMetadata(), Data: p.GetData()}
}

func (p codecPayload) proto() *commonpb.Payload {
	return &commonpb.Payload{Metadata: p.Metadata, Data: p.Data}
}

// codecFixture is what Go's codec encoded, for the TypeScript codec to
// decode (test/codec.test.ts), and what that codec encoded for Go to
// decode (ts-encoded.json).
type codecFixture struct {
	Namespace  string         `json:"namespace"`
	WorkflowID string         `json:"workflow_id"`
	Plain      []codecPayload `json:"plain"`
	Unbound    []codecPayload `json:"unbound"`
	Bound      []codecPayload `json:"bound"`
}

// writeCodecFixture encodes three plain payloads with the Go codec,
// unbound and bound to a workflow, into out/go-encoded.json.
func writeCodecFixture(t *testing.T, e *tether, out string) string {
	t.Helper()
	c, err := codec.New(codec.Config{Keys: []codec.Key{e.codecKey}})
	require.NoError(t, err)
	f := codecFixture{Namespace: e.namespace, WorkflowID: "go-bound-agent"}
	var plain []*commonpb.Payload
	for _, v := range []any{signals.Message{ID: "m-1", Content: "the secret plan"}, "", map[string]int{"n": 42}} {
		p, err := converter.GetDefaultDataConverter().ToPayload(v)
		require.NoError(t, err)
		plain = append(plain, p)
		f.Plain = append(f.Plain, toJSONPayload(p))
	}
	unbound, err := c.Encode(plain)
	require.NoError(t, err)
	bound, err := c.WithSerializationContext(converter.WorkflowSerializationContext{Namespace: e.namespace, WorkflowID: f.WorkflowID}).Encode(plain)
	require.NoError(t, err)
	for i := range plain {
		f.Unbound = append(f.Unbound, toJSONPayload(unbound[i]))
		f.Bound = append(f.Bound, toJSONPayload(bound[i]))
	}
	b, err := json.Marshal(f)
	require.NoError(t, err)
	path := filepath.Join(out, "go-encoded.json")
	require.NoError(t, os.WriteFile(path, b, 0o600))
	return path
}

// requireGoDecodes decodes with the Go codec what the TypeScript codec
// encoded: its unbound payloads anywhere, its bound ones in their own
// workflow's context only.
func requireGoDecodes(t *testing.T, e *tether, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err, "the TypeScript codec test writes what it encoded")
	var f codecFixture
	require.NoError(t, json.Unmarshal(b, &f))
	require.NotEmpty(t, f.Plain)
	require.Len(t, f.Unbound, len(f.Plain))
	require.Len(t, f.Bound, len(f.Plain))
	c, err := codec.New(codec.Config{Keys: []codec.Key{e.codecKey}, RequireBinding: true})
	require.NoError(t, err)
	own := c.WithSerializationContext(converter.WorkflowSerializationContext{Namespace: f.Namespace, WorkflowID: f.WorkflowID})
	other := c.WithSerializationContext(converter.WorkflowSerializationContext{Namespace: f.Namespace, WorkflowID: "another-agent"})
	for i, want := range f.Plain {
		unbound, bound := f.Unbound[i].proto(), f.Bound[i].proto()
		require.True(t, codec.Encrypted(unbound) && codec.Encrypted(bound), "payload %d is encrypted", i)
		require.Equal(t, e.codecKey.ID, string(unbound.GetMetadata()[codec.MetadataKeyID]))
		require.NotContains(t, string(unbound.GetData()), string(want.Data), "no plaintext in payload %d", i)
		got, err := c.Decode([]*commonpb.Payload{unbound})
		require.NoError(t, err, "payload %d: Go decodes the TypeScript codec's unbound payload", i)
		require.Equal(t, want.Metadata, got[0].GetMetadata())
		require.Equal(t, want.Data, got[0].GetData())
		require.Equal(t, codec.VersionBound, string(bound.GetMetadata()[codec.MetadataVersion]))
		require.Equal(t, f.WorkflowID, string(bound.GetMetadata()[codec.MetadataWorkflowID]))
		got, err = own.Decode([]*commonpb.Payload{bound})
		require.NoError(t, err, "payload %d: Go decodes the bound payload in its workflow's context", i)
		require.Equal(t, want.Data, got[0].GetData())
		_, err = other.Decode([]*commonpb.Payload{bound})
		var be *codec.BindingError
		require.ErrorAs(t, err, &be, "payload %d: refused in another workflow's context", i)
		_, err = own.Decode([]*commonpb.Payload{unbound})
		require.ErrorAs(t, err, &be, "payload %d: a codec requiring binding refuses an unbound payload in a workflow's context", i)
	}
}

// requireSameLogFromHistory disposes every agent still open, stops the
// workers, and compares, for every agent the tests made, the log the
// TypeScript client folds from its history (test/fold.ts) with the Go
// projection's: the same events, as JSON. At least one agent's chain
// continued as new.
func requireSameLogFromHistory(ctx context.Context, t *testing.T, e *tether, dir string, env []string) {
	t.Helper()
	ids := agentIDs(ctx, t, e.c)
	require.NotEmpty(t, ids)
	for _, id := range ids {
		disposeOpen(ctx, t, e, id)
	}
	e.stop() // no worker from here on
	args := append([]string{filepath.Join("dist", "test", "fold.js")}, ids...)
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	require.NoError(t, err, "fold.js:\n%s", stderr.String())
	var folded map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(stdout, &folded), "fold.js prints a JSON object:\n%s", stdout)
	chains := 0
	for _, id := range ids {
		runs, err := projection.FetchChain(ctx, e.c, id)
		require.NoError(t, err)
		if len(runs) > 1 {
			chains++
		}
		log, goErr := projection.Using(e.dc).FromChain(runs...)
		ts, ok := folded[id]
		require.True(t, ok, "fold.js folded %s", id)
		var failed struct {
			Error string `json:"error"`
		}
		if goErr != nil {
			require.NoError(t, json.Unmarshal(ts, &failed))
			require.NotEmpty(t, failed.Error, "%s: Go's projection fails (%v), and so must the TypeScript fold: %s", id, goErr, ts)
			continue
		}
		if log == nil {
			log = []eventlog.Envelope{} // an empty log (nothing journaled yet) is [] in TypeScript
		}
		want, err := json.Marshal(log)
		require.NoError(t, err)
		require.JSONEq(t, string(want), string(ts), "%s: the TypeScript fold of its history is the Go projection's log", id)
		t.Logf("%s: %d events, %d runs, the same from both", id, len(log), len(runs))
	}
	require.Positive(t, chains, "an agent whose chain continued as new was compared")
}

// agentIDs lists the IDs of every tether.Agent workflow on the server.
func agentIDs(ctx context.Context, t *testing.T, c client.Client) []string {
	t.Helper()
	var ids []string
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: "WorkflowType = '" + signals.AgentWorkflow + "'", NextPageToken: token,
		})
		require.NoError(t, err)
		for _, info := range resp.GetExecutions() {
			ids = append(ids, info.GetExecution().GetWorkflowId())
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// disposeOpen disposes agent id if its latest run is open on a worker's
// queue, and waits for its end.
func disposeOpen(ctx context.Context, t *testing.T, e *tether, id string) {
	t.Helper()
	desc, err := e.c.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	if desc.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return
	}
	c := e.c
	switch desc.GetExecutionConfig().GetTaskQueue().GetName() {
	case codecQueue:
		c = e.cc
	case signals.TaskQueue:
	default: // no worker polls its queue: end it
		require.NoError(t, c.TerminateWorkflow(ctx, id, "", "the test ends"))
		return
	}
	require.NoError(t, c.SignalWorkflow(ctx, id, "", signals.DisposeSignal.Name, signals.Dispose{Cause: "the test ends"}))
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_ = c.GetWorkflow(wctx, id, "").Get(wctx, nil) // how it ended is the log's to say
	desc, err = c.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	require.NotEqual(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, desc.GetWorkflowExecutionInfo().GetStatus(), "dispose %s", id)
}

// requireInstallable packs the built package and installs the tarball into
// an empty project, which then loads it.
func requireInstallable(ctx context.Context, t *testing.T, npm, dir string, env []string) {
	t.Helper()
	runNpm(ctx, t, npm, dir, env, "pack", "--pack-destination", dir)
	tarballs, err := filepath.Glob(filepath.Join(dir, "*.tgz"))
	require.NoError(t, err)
	require.Len(t, tarballs, 1)
	project := t.TempDir()
	runNpm(ctx, t, npm, project, env, "init", "-y")
	runNpm(ctx, t, npm, project, env, "install", "--no-audit", "--no-fund", tarballs[0])
	load := exec.CommandContext(ctx, "node", "-e",
		`const t = require("@tetherdev/tether-client"); if (t.AGENT_WORKFLOW !== "tether.Agent" || typeof t.TetherClient !== "function") process.exit(1)`)
	load.Dir = project
	out, err := load.CombinedOutput()
	require.NoError(t, err, "the installed package does not load:\n%s", out)
}

// requireNode returns npm's path, skipping the test when node is missing.
func requireNode(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the TypeScript client's tests need Node.js 18 or later and npm (.ci/run installs them)")
	}
	npm, err := exec.LookPath("npm")
	require.NoError(t, err, "node is installed but npm is not")
	return npm
}

func runNpm(ctx context.Context, t *testing.T, npm, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, npm, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.WaitDelay = 5 * time.Second // a child left holding the output must not hang the test
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	t.Logf("npm %s:\n%s", strings.Join(args, " "), out.String())
}

// copyPackage copies the npm package into a temporary directory.
func copyPackage(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range packageFiles {
		info, err := os.Stat(name)
		require.NoError(t, err)
		if info.IsDir() {
			require.NoError(t, os.CopyFS(filepath.Join(dir, name), os.DirFS(name)), "copy %s", name)
			continue
		}
		b, err := os.ReadFile(name)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	return dir
}
