package devserver

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"

	"github.com/tetherdev/tether/signals"
)

// Options configures Start. The zero value is an in-memory server on
// 127.0.0.1 with namespace "default", a free gRPC port and no UI.
type Options struct {
	// DataDir holds temporal.db and its version stamp; created if missing.
	// Empty means a fresh in-memory database.
	DataDir string
	// Namespace is created if missing. Default "default".
	Namespace string
	// IP every service binds to. Default 127.0.0.1.
	IP string
	// GRPCPort of the frontend; 0 picks a free port.
	GRPCPort int
	// UIPort of the Web UI; 0 means no UI, -1 picks a free port.
	UIPort int
	// CodecEndpoint, when set, is the codec server the Web UI decodes
	// payloads with (the remote codec protocol's base URL).
	CodecEndpoint string
	// SearchAttributes are registered on Namespace: at creation, and through
	// the operator service for an existing database that lacks some.
	SearchAttributes map[string]enumspb.IndexedValueType
	// DynamicConfig keys (e.g. "limit.historyCount.suggestContinueAsNew")
	// merged over the defaults. Unknown keys are silently ignored.
	DynamicConfig map[string]any
	// LogLevel of the server log on stderr: debug, info, warn or error
	// (default).
	LogLevel string
	// MutualTLS makes every service of the server require a client
	// certificate signed by a CA made for DataDir (in DataDir/tls, with the
	// one client certificate ClientTLS loads), so other local users, who
	// cannot read the data dir, cannot reach the server. It needs DataDir;
	// the Web UI dials with the client certificate, so with a UI it needs
	// UIToken too, or the UI would hand every local user what the
	// certificate keeps from them.
	MutualTLS bool
	// UIToken, when set, is the token the Web UI asks for at its login
	// form (or as a bearer header) before it answers any request.
	UIToken string
}

const (
	defaultNamespace    = "default"
	defaultIP           = "127.0.0.1"
	defaultLogLevel     = "error"
	clusterName         = "active"
	storeName           = "sqlite-default"
	visibilityStoreName = "sqlite-visibility"
	// readyTimeout bounds Start when its context has no deadline.
	readyTimeout = time.Minute
)

func (o Options) withDefaults() (Options, error) {
	if o.Namespace == "" {
		o.Namespace = defaultNamespace
	}
	if o.IP == "" {
		o.IP = defaultIP
	}
	if ip := net.ParseIP(o.IP); ip == nil || ip.IsUnspecified() {
		return o, fmt.Errorf("IP %q: need a concrete address that clients and services can dial", o.IP)
	}
	if o.GRPCPort < 0 || o.GRPCPort > 65535 {
		return o, fmt.Errorf("GRPCPort %d out of range", o.GRPCPort)
	}
	if o.UIPort < -1 || o.UIPort > 65535 {
		return o, fmt.Errorf("UIPort %d out of range (0 = no UI, -1 = free port)", o.UIPort)
	}
	o.LogLevel = strings.ToLower(o.LogLevel)
	switch o.LogLevel {
	case "":
		o.LogLevel = defaultLogLevel
	case "debug", "info", "warn", "error":
	default:
		return o, fmt.Errorf("LogLevel %q: want debug, info, warn or error", o.LogLevel)
	}
	if o.MutualTLS && o.DataDir == "" {
		return o, fmt.Errorf("MutualTLS needs a DataDir for its certificates")
	}
	if o.MutualTLS && o.UIPort != 0 && strings.TrimSpace(o.UIToken) == "" {
		return o, fmt.Errorf("MutualTLS with the Web UI needs a UIToken: the UI holds the client certificate")
	}
	if o.DataDir != "" {
		abs, err := filepath.Abs(o.DataDir)
		if err != nil {
			return o, fmt.Errorf("DataDir: %w", err)
		}
		o.DataDir = abs
	}
	return o, nil
}

// DefaultSearchAttributes are Tether's custom search attributes
// (signals.SearchAttributeKinds) as Temporal index types.
func DefaultSearchAttributes() map[string]enumspb.IndexedValueType {
	out := make(map[string]enumspb.IndexedValueType, len(signals.SearchAttributeKinds))
	for name, kind := range signals.SearchAttributeKinds {
		t, err := enumspb.IndexedValueTypeFromString(kind)
		if err != nil {
			panic(fmt.Sprintf("signals.SearchAttributeKinds[%q]: %v", name, err))
		}
		out[name] = t
	}
	return out
}

// ports of one server; frontend is what clients dial.
type ports struct {
	frontend, frontendHTTP, history, matching, worker, ui int
}

// node is the server's deployment on ip.
func (p ports) node(ip string) Node {
	return Node{IP: ip, Frontend: p.frontend, FrontendHTTP: p.frontendHTTP, History: p.history, Matching: p.matching, Worker: p.worker}
}

// serverConfig is a single-node cluster with one history shard.
func serverConfig(o Options, p ports, st stores) *config.Config {
	var c config.Config
	p.node(o.IP).Configure(&c)
	c.Persistence.DefaultStore = storeName
	c.Persistence.VisibilityStore = visibilityStoreName
	c.Persistence.NumHistoryShards = 1
	c.Persistence.DataStores = map[string]config.DataStore{storeName: {SQL: st.main}, visibilityStoreName: {SQL: st.visibility}}
	return &c
}

// DynamicConfig is the dynamic config the embedded server runs with, extra
// merged over it. Test servers started another way (temporaltest) take it
// too, so that tests run on the settings the product runs on.
func DynamicConfig(extra map[string]any) dynamicconfig.StaticClient { return dynamicConfig(extra) }

// dynamicConfig is our defaults with extra merged over them. Besides
// laptop sizing they are tuned for latency: a turn should cost the
// workflow tasks and activities it needs and no further hop.
func dynamicConfig(extra map[string]any) dynamicconfig.StaticClient {
	dc := dynamicconfig.StaticClient{
		// Activities a workflow task schedules come back in the response to
		// that task, to the worker holding the workflow and its log
		// snapshot: no trip through matching, no log query. On by default
		// in this release; stated because Tether's latency rests on it.
		dynamicconfig.EnableActivityEagerExecution.Key(): true,
		// A start from a client that hosts a worker gets its first
		// workflow task in the response (the client asks for it).
		dynamicconfig.EnableEagerWorkflowStart.Key(): true,
		// One partition per task queue: on a single node more only add a
		// hop, tasks and polls forwarded between partitions.
		dynamicconfig.MatchingNumTaskqueueReadPartitions.Key():  1,
		dynamicconfig.MatchingNumTaskqueueWritePartitions.Key(): 1,
		// The UI lists workflows often; the default of 10/s throttles it.
		dynamicconfig.FrontendMaxNamespaceVisibilityRPSPerInstance.Key(): 100,
		// A laptop-sized mutable state cache (default 128k entries).
		dynamicconfig.HistoryCacheHostLevelMaxSize.Key(): 8096,
	}
	for k, v := range extra {
		dc[dynamicconfig.MakeKey(k)] = v
	}
	return dc
}
