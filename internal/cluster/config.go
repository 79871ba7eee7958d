package cluster

import (
	"net"
	"strconv"
	"time"

	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/membership/static"
	"go.temporal.io/server/common/primitives"

	"github.com/tetherdev/tether/internal/devserver"
)

const (
	clusterName     = "active"
	defaultStore    = "postgres-default"
	visibilityStore = "postgres-visibility"
)

// ports of one server; frontend is what clients dial.
type ports struct {
	frontend, frontendHTTP, history, matching, worker, ui int
}

func (p ports) byService() map[primitives.ServiceName]int {
	return map[primitives.ServiceName]int{
		primitives.FrontendService: p.frontend,
		primitives.HistoryService:  p.history,
		primitives.MatchingService: p.matching,
		primitives.WorkerService:   p.worker,
	}
}

// choosePorts picks free ports for everything o leaves open.
func choosePorts(o Options) (ports, error) {
	n := 4 // frontend HTTP, history, matching, worker
	if o.GRPCPort == 0 {
		n++
	}
	if o.UIPort == -1 {
		n++
	}
	free, err := devserver.FreePorts(o.IP, n)
	if err != nil {
		return ports{}, err
	}
	next := func() int { p := free[0]; free = free[1:]; return p }
	p := ports{frontend: o.GRPCPort, frontendHTTP: next(), history: next(), matching: next(), worker: next(), ui: o.UIPort}
	if p.frontend == 0 {
		p.frontend = next()
	}
	if p.ui == -1 {
		p.ui = next()
	}
	return p, nil
}

func hostPort(ip string, port int) string { return net.JoinHostPort(ip, strconv.Itoa(port)) }

// serverConfig is a single-cluster, single-node deployment: both stores on
// PostgreSQL, archival off, no global namespaces.
func serverConfig(o Options, p ports) *config.Config {
	var c config.Config
	c.Global.Membership.MaxJoinDuration = 30 * time.Second
	c.Global.Membership.BroadcastAddress = o.IP
	c.Persistence.DefaultStore = defaultStore
	c.Persistence.VisibilityStore = visibilityStore
	c.Persistence.NumHistoryShards = int32(o.Shards)
	c.Persistence.DataStores = map[string]config.DataStore{
		defaultStore:    {SQL: o.Postgres.sqlConfig(o.Postgres.Database, maxConns)},
		visibilityStore: {SQL: o.Postgres.sqlConfig(o.Postgres.VisibilityDatabase, maxVisibilityConns)},
	}
	c.ClusterMetadata = &cluster.Config{
		FailoverVersionIncrement: 10,
		MasterClusterName:        clusterName,
		CurrentClusterName:       clusterName,
		ClusterInformation: map[string]cluster.ClusterInformation{clusterName: {
			Enabled:                true,
			InitialFailoverVersion: 1,
			RPCAddress:             hostPort(o.IP, p.frontend),
			HTTPAddress:            hostPort(o.IP, p.frontendHTTP),
		}},
	}
	c.DCRedirectionPolicy.Policy = "noop"
	c.Services = map[string]config.Service{}
	for name, port := range p.byService() {
		svc := config.Service{RPC: config.RPC{GRPCPort: port, BindOnIP: o.IP}}
		if name == primitives.FrontendService {
			svc.RPC.HTTPPort = p.frontendHTTP
		}
		c.Services[string(name)] = svc
	}
	c.Archival.History.State = "disabled"
	c.Archival.Visibility.State = "disabled"
	c.NamespaceDefaults.Archival.History.State = "disabled"
	c.NamespaceDefaults.Archival.Visibility.State = "disabled"
	c.PublicClient.HostPort = hostPort(o.IP, p.frontend)
	return &c
}

// staticHosts replaces ringpop: every service is one known local host.
func staticHosts(ip string, p ports) map[primitives.ServiceName]static.Hosts {
	hosts := map[primitives.ServiceName]static.Hosts{}
	for name, port := range p.byService() {
		hosts[name] = static.SingleLocalHost(hostPort(ip, port))
	}
	return hosts
}
