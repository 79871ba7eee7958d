package devserver

import (
	"net"
	"strconv"
	"time"

	"go.temporal.io/server/common/authorization"
	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/membership/static"
	"go.temporal.io/server/common/primitives"
	"go.temporal.io/server/temporal"
)

// Node is a single-node Temporal deployment on one IP: each service on a
// port of its own. The embedded server and internal/cluster both run one;
// they differ in their stores and dynamic config.
type Node struct {
	IP                                                string
	Frontend, FrontendHTTP, History, Matching, Worker int
}

func (n Node) byService() map[primitives.ServiceName]int {
	return map[primitives.ServiceName]int{
		primitives.FrontendService: n.Frontend,
		primitives.HistoryService:  n.History,
		primitives.MatchingService: n.Matching,
		primitives.WorkerService:   n.Worker,
	}
}

// Configure sets what c needs to run as n besides its stores: membership,
// a single cluster of this one node, the services' ports, archival off,
// and the public client on the frontend.
func (n Node) Configure(c *config.Config) {
	c.Global.Membership.MaxJoinDuration = 30 * time.Second
	c.Global.Membership.BroadcastAddress = n.IP
	c.ClusterMetadata = &cluster.Config{
		FailoverVersionIncrement: 10,
		MasterClusterName:        clusterName,
		CurrentClusterName:       clusterName,
		ClusterInformation: map[string]cluster.ClusterInformation{clusterName: {
			Enabled:                true,
			InitialFailoverVersion: 1,
			RPCAddress:             hostPort(n.IP, n.Frontend),
			HTTPAddress:            hostPort(n.IP, n.FrontendHTTP),
		}},
	}
	c.DCRedirectionPolicy.Policy = "noop"
	c.Services = map[string]config.Service{}
	for name, port := range n.byService() {
		svc := config.Service{RPC: config.RPC{GRPCPort: port, BindOnIP: n.IP}}
		if name == primitives.FrontendService {
			svc.RPC.HTTPPort = n.FrontendHTTP
		}
		c.Services[string(name)] = svc
	}
	c.Archival.History.State = "disabled"
	c.Archival.Visibility.State = "disabled"
	c.NamespaceDefaults.Archival.History.State = "disabled"
	c.NamespaceDefaults.Archival.Visibility.State = "disabled"
	c.PublicClient.HostPort = hostPort(n.IP, n.Frontend)
}

// NewServer builds the Temporal server for conf (made by Configure) with
// all its services, static hosts instead of ringpop (faster, no
// membership ports), conf's authorizer and claim mapper, and StartPolicy
// on the frontend; extra adds options such as a dynamic config client (not
// frontend interceptors: WithChainedFrontendGrpcInterceptors would replace
// StartPolicy).
func (n Node) NewServer(conf *config.Config, logger log.Logger, extra ...temporal.ServerOption) (temporal.Server, error) {
	authorizer, err := authorization.GetAuthorizerFromConfig(&conf.Global.Authorization)
	if err != nil {
		return nil, err
	}
	claimMapper, err := authorization.GetClaimMapperFromConfig(&conf.Global.Authorization, logger)
	if err != nil {
		return nil, err
	}
	hosts := map[primitives.ServiceName]static.Hosts{}
	for name, port := range n.byService() {
		hosts[name] = static.SingleLocalHost(hostPort(n.IP, port))
	}
	return temporal.NewServer(append([]temporal.ServerOption{
		temporal.WithConfig(conf),
		temporal.ForServices(temporal.DefaultServices),
		temporal.WithStaticHosts(hosts),
		temporal.WithLogger(logger),
		temporal.WithAuthorizer(authorizer),
		temporal.WithClaimMapper(func(*config.Config) authorization.ClaimMapper { return claimMapper }),
		temporal.WithChainedFrontendGrpcInterceptors(StartPolicy),
	}, extra...)...)
}

func hostPort(ip string, port int) string { return net.JoinHostPort(ip, strconv.Itoa(port)) }
