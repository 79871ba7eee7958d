package cluster

import (
	"net"
	"strconv"

	"go.temporal.io/server/common/config"

	"github.com/tetherdev/tether/internal/devserver"
)

const (
	defaultStore    = "postgres-default"
	visibilityStore = "postgres-visibility"
)

// ports of one server; frontend is what clients dial.
type ports struct {
	frontend, frontendHTTP, history, matching, worker, ui int
}

// node is the server's deployment on ip.
func (p ports) node(ip string) devserver.Node {
	return devserver.Node{IP: ip, Frontend: p.frontend, FrontendHTTP: p.frontendHTTP, History: p.history, Matching: p.matching, Worker: p.worker}
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
	p.node(o.IP).Configure(&c)
	c.Persistence.DefaultStore = defaultStore
	c.Persistence.VisibilityStore = visibilityStore
	c.Persistence.NumHistoryShards = int32(o.Shards)
	c.Persistence.DataStores = map[string]config.DataStore{
		defaultStore:    {SQL: o.Postgres.sqlConfig(o.Postgres.Database, maxConns)},
		visibilityStore: {SQL: o.Postgres.sqlConfig(o.Postgres.VisibilityDatabase, maxVisibilityConns)},
	}
	return &c
}
