package typescript_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/activities/stream"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/fx/workerfx"
	"github.com/tetherdev/tether/internal/testserver"
	"github.com/tetherdev/tether/signals"
	"github.com/tetherdev/tether/workflows"
)

// codecQueue is the task queue of the worker whose payloads are encrypted.
const codecQueue = "tether-codec"

// tether is a live embedded Tether: a Temporal server with Tether's search
// attributes, a worker on signals.TaskQueue streaming its model calls to a
// hub (the feed), and a worker on codecQueue whose client encrypts every
// payload with codecKey.
type tether struct {
	address, namespace string
	// c is a client of plain payloads; cc, with dc, encrypts them.
	c, cc    client.Client
	dc       converter.DataConverter
	codecKey codec.Key
	stop     func() // stops both workers (idempotent)
}

// codecSpec is the key in TETHER_CODEC_KEYS form, id:base64.
func (e *tether) codecSpec() string {
	return e.codecKey.ID + ":" + base64.StdEncoding.EncodeToString(e.codecKey.Secret)
}

// startTether starts an embedded Temporal server with Tether's search
// attributes and two workers on the scripted model offering calculate and
// the loop's tools: one with plain payloads and a live feed, one on
// codecQueue with codec keys.
func startTether(t *testing.T) *tether {
	t.Helper()
	ts := testserver.New(t)
	c := ts.GetDefaultClient()
	attrs := map[string]enumspb.IndexedValueType{}
	for name, kind := range signals.SearchAttributeKinds {
		attrs[name] = enumspb.IndexedValueType(enumspb.IndexedValueType_value["INDEXED_VALUE_TYPE_"+strings.ToUpper(kind)])
	}
	_, err := c.OperatorService().AddSearchAttributes(context.Background(), &operatorservice.AddSearchAttributesRequest{
		Namespace: ts.GetDefaultNamespace(), SearchAttributes: attrs,
	})
	require.NoError(t, err)

	e := &tether{address: ts.GetFrontendHostPort(), namespace: ts.GetDefaultNamespace(), c: c}
	e.codecKey = codec.Key{ID: "ts-key.1", Secret: make([]byte, codec.KeySize)}
	_, err = rand.Read(e.codecKey.Secret)
	require.NoError(t, err)
	opts := client.Options{HostPort: e.address, Namespace: e.namespace}
	e.dc, err = codec.Configure(&opts, codec.Config{Keys: []codec.Key{e.codecKey}})
	require.NoError(t, err)
	e.cc = ts.NewClientWithOptions(opts)

	hub := stream.NewHub(stream.HubOptions{})
	srv := httptest.NewServer(hub.Handler())
	t.Cleanup(func() { hub.Close(); srv.Close() })
	feeds := activities.HubStreams{Hub: hub, BaseURL: srv.URL}
	plain := newWorker(t, c, signals.TaskQueue, &feeds)
	encrypted := newWorker(t, e.cc, codecQueue, nil)
	var once sync.Once
	e.stop = func() { once.Do(func() { plain.Stop(); encrypted.Stop() }) }
	t.Cleanup(e.stop)
	return e
}

// newWorker starts a Tether worker on queue over c; feeds, when set,
// serves its model calls' live chunks.
func newWorker(t *testing.T, c client.Client, queue string, feeds *activities.HubStreams) worker.Worker {
	t.Helper()
	reg, err := tools.NewRegistry(append([]tools.Tool{tools.Calculator()}, tools.LoopTools()...)...)
	require.NoError(t, err)
	reader := activities.NewLogReader(activities.WorkflowLog{Client: c}, 0)
	// The scripted model streams its answer word by word, 2 ms a word.
	providers := map[string]activities.Provider{scripted.Name: scripted.Provider{WordDelay: 2 * time.Millisecond}}
	model := &activities.Model{Providers: providers, DefaultProvider: scripted.Name, Tools: reg, Log: reader, HeartbeatEvery: time.Second}
	if feeds != nil {
		model.Streams = *feeds
	}
	tool := &activities.Tool{Runner: reg, Log: reader, HeartbeatEvery: time.Second}
	require.NoError(t, model.Validate())
	require.NoError(t, tool.Validate())
	// MaxRunTurns: an agent continues as new after 3 turns, so the
	// client reads a log across runs.
	base := workflows.Config{ModelHeartbeat: 3 * time.Second, ToolHeartbeat: 3 * time.Second, MaxRunTurns: 3}
	cfg := workerfx.WorkflowConfig(base, nil, reg)
	cfg.Snapshots = reader
	cfg.Providers = slices.Sorted(maps.Keys(providers))
	if feeds != nil {
		cfg.Feeds = *feeds
	}
	w := worker.New(c, queue, worker.Options{})
	workflows.Register(w, cfg)
	activities.Register(w, model, tool)
	require.NoError(t, w.Start())
	return w
}
