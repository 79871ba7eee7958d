package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/activities/stream"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/blobstore"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/internal/pgtest"
	"github.com/tetherdev/tether/projection"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// gcStore is a store under test: the variable the starter finds it by,
// and a way to date a blob back.
type gcStore struct {
	store    blobstore.Store
	env      map[string]string
	backdate func(t *testing.T, sum string, at time.Time)
}

func dirStore(t *testing.T) gcStore {
	d, err := blobstore.NewDir(filepath.Join(t.TempDir(), "blobs"))
	require.NoError(t, err)
	return gcStore{store: d, env: map[string]string{blobstore.EnvDir: d.Path()},
		backdate: func(t *testing.T, sum string, at time.Time) {
			require.NoError(t, os.Chtimes(filepath.Join(d.Path(), sum), at, at))
		}}
}

func postgresStore(t *testing.T) gcStore {
	srv := pgtest.Start(t)
	p, err := blobstore.Open(context.Background(), srv.DSN)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	conn, err := pgx.Connect(context.Background(), srv.DSN)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close(context.Background()) })
	return gcStore{store: p, env: map[string]string{blobstore.EnvStore: srv.DSN},
		backdate: func(t *testing.T, sum string, at time.Time) {
			_, err := conn.Exec(context.Background(), "UPDATE "+blobstore.PostgresTable+" SET stored_at = $2 WHERE sha256 = $1", sum, at)
			require.NoError(t, err)
		}}
}

// `starter blobs gc` on each store: of blobs all dated two hours back, it
// deletes those no history names (an unreferenced one) and
// keeps those of a running agent and of a disposed one within retention,
// which both read whole afterwards; a fresh unreferenced blob stays.
func TestBlobsGCDeletesOnlyOldBlobsNoHistoryReferences(t *testing.T) {
	for name, open := range map[string]func(*testing.T) gcStore{"dir": dirStore, "postgres": postgresStore} {
		t.Run(name, func(t *testing.T) { testBlobsGC(t, open(t)) })
	}
}

func testBlobsGC(t *testing.T, st gcStore) {
	s := newBareServer(t)
	c := s.ts.NewClientWithOptions(client.Options{ExternalStorage: blobstore.StorageOf(st.store, 1024)})
	dc := blobstore.ResolvingWith(converter.GetDefaultDataConverter(), st.store)
	w := startBlobWorker(t, c)
	ctx := ctxT(t, 3*time.Minute)
	agents := agent.New(c, "", agent.WithDataConverter(dc))
	long := strings.Repeat("a long message kept as a blob. ", 100) // over the 1 KiB threshold
	running, err := agents.Create(ctx, agent.CreateOptions{ID: "running", First: "RUNNING " + long + "\n/say " + long})
	require.NoError(t, err)
	closed, err := agents.Create(ctx, agent.CreateOptions{ID: "closed", First: "CLOSED " + long + "\n/say " + long})
	require.NoError(t, err)
	for _, h := range []*agent.Handle{running, closed} {
		_, err = h.WaitIdle(ctx)
		require.NoError(t, err)
	}
	require.NoError(t, closed.Dispose(ctx, "test"))
	_ = c.GetWorkflow(ctx, closed.ID, "").Get(ctx, nil) // until it has ended
	desc, err := c.DescribeWorkflowExecution(ctx, closed.ID, "")
	require.NoError(t, err)
	require.NotEqual(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, desc.GetWorkflowExecutionInfo().GetStatus())

	sums := func() map[string]bool {
		all := map[string]bool{}
		require.NoError(t, st.store.Blobs(ctx, func(b blobstore.Blob) error { all[b.SHA256] = true; return nil }))
		return all
	}
	claim := func(v string) string {
		p, err := converter.GetDefaultDataConverter().ToPayload(v)
		require.NoError(t, err)
		cl, err := st.store.Store(converter.StorageDriverStoreContext{Context: ctx}, []*commonpb.Payload{p})
		require.NoError(t, err)
		return cl[0].ClaimData[blobstore.ClaimSHA256]
	}
	orphan := claim("stored, never claimed in any history")
	twoHoursAgo := time.Now().Add(-2 * time.Hour)
	before := sums()
	for sum := range before {
		st.backdate(t, sum, twoHoursAgo)
	}
	fresh := claim("stored just now: its claim may be on its way to history")
	require.GreaterOrEqual(t, len(before), 3, "the agents' histories hold claims, beside the orphan")

	run := func(args ...string) result {
		var out, errOut bytes.Buffer
		starter := Starter{Out: &out, Err: &errOut, Env: func(k string) string { return st.env[k] },
			Dial: func(_ context.Context, o client.Options) (client.Client, error) {
				return s.ts.NewClientWithOptions(client.Options{Namespace: o.Namespace}), nil
			}}
		code := starter.Run(ctx, append([]string{"--namespace", s.ts.GetDefaultNamespace()}, args...))
		return result{code: code, out: out.String(), err: errOut.String()}
	}
	r := run("blobs", "gc", "--dry-run")
	require.Equal(t, 0, r.code, r.err)
	require.Contains(t, r.out, "would delete")
	require.Len(t, sums(), len(before)+1, "a dry run deletes nothing")

	r = run("blobs", "gc")
	require.Equal(t, 0, r.code, r.err)
	require.Contains(t, r.out, "read 2 workflows")
	after := sums()
	require.False(t, after[orphan], "an old blob no history names is deleted")
	require.True(t, after[fresh], "a blob stored within the grace stays")
	require.Greater(t, len(after), 2, "the agents' blobs stay, beside the fresh one")

	// Every claim of both histories still resolves: projection decodes
	// every payload the history holds through the store.
	for _, id := range []string{running.ID, closed.ID} {
		history, err := projection.Fetch(ctx, c, id, "")
		require.NoError(t, err)
		log, err := projection.Using(dc).FromHistory(history)
		require.NoError(t, err, "agent %s's history reads whole", id)
		require.NotEmpty(t, log)
	}
	// The running agent replays its history (its cache purged) and answers.
	w.Stop()
	worker.PurgeStickyWorkflowCache()
	startBlobWorker(t, c)
	_, err = running.Followup(ctx, "again\n/say still here", agent.Acknowledged())
	require.NoError(t, err)
	status, err := running.WaitIdle(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, status.Turn)

	r = run("blobs", "gc", "--grace", "10s")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.err, "under a minute")
	st.env = nil
	r = run("blobs", "gc")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.err, blobstore.EnvStore, "without a store the command says what to set")
}

// startBlobWorker runs the agent worker on c, whose payloads over the
// threshold go to its store.
func startBlobWorker(t *testing.T, c client.Client) worker.Worker {
	t.Helper()
	reg, err := tools.NewRegistry(append([]tools.Tool{tools.Calculator()}, tools.LoopTools()...)...)
	require.NoError(t, err)
	hub := stream.NewHub(stream.HubOptions{})
	t.Cleanup(hub.Close)
	reader := activities.NewLogReader(activities.WorkflowLog{Client: c}, 0)
	providers := map[string]activities.Provider{scripted.Name: scripted.Provider{}}
	model := &activities.Model{Streams: activities.HubStreams{Hub: hub, BaseURL: "http://127.0.0.1:1"},
		Providers: providers, DefaultProvider: scripted.Name, Tools: reg, Log: reader, HeartbeatEvery: time.Second}
	tool := &activities.Tool{Runner: reg, Log: reader, HeartbeatEvery: time.Second}
	cfg := workerfx.WorkflowConfig(workflows.Config{ModelHeartbeat: 3 * time.Second, ToolHeartbeat: 3 * time.Second}, nil, reg)
	cfg.Feeds, cfg.Snapshots = model.Streams.(activities.HubStreams), reader
	cfg.Providers = []string{scripted.Name}
	w := worker.New(c, signals.TaskQueue, worker.Options{})
	workflows.Register(w, cfg)
	activities.Register(w, model, tool)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return w
}
