package cluster

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/persistence/sql/sqlplugin/postgresql"
)

// Options configures Start.
type Options struct {
	Postgres Postgres
	// Namespace is registered when missing. Default "default".
	Namespace string
	// Retention of closed workflows in Namespace. Default 24h.
	Retention time.Duration
	// Shards is the number of history shards, fixed when the cluster is
	// first created. Default 4.
	Shards int
	// IP every service binds to. Default 127.0.0.1.
	IP string
	// GRPCPort of the frontend; 0 picks a free port.
	GRPCPort int
	// UIPort of the Web UI; 0 means no UI, -1 picks a free port.
	UIPort int
	// LogLevel of the server's JSON log on stderr: debug, info, warn
	// (default) or error.
	LogLevel string
}

// Postgres locates the PostgreSQL server holding the two databases.
type Postgres struct {
	// Addr is host:port. With SocketDir set, the server is reached through
	// the Unix socket SocketDir/.s.PGSQL.<port> instead of TCP.
	Addr      string
	SocketDir string
	User      string
	Password  string
	// Database and VisibilityDatabase are created when missing. Defaults
	// "temporal" and "temporal_visibility".
	Database           string
	VisibilityDatabase string
}

// Defaults.
const (
	DefaultNamespace          = "default"
	DefaultRetention          = 24 * time.Hour
	DefaultShards             = 4
	DefaultIP                 = "127.0.0.1"
	DefaultLogLevel           = "warn"
	DefaultDatabase           = "temporal"
	DefaultVisibilityDatabase = "temporal_visibility"

	// PluginName is the persistence plugin: PostgreSQL 12+ through pgx.
	PluginName = postgresql.PluginNamePGX

	// Connection pools per store, as Temporal's own postgres configs size
	// them for one server process.
	maxConns           = 20
	maxVisibilityConns = 10
	maxConnLifetime    = time.Hour

	// Names of the embedded schemas the schema tool applies.
	schemaName           = "postgresql/v12/temporal"
	visibilitySchemaName = "postgresql/v12/visibility"
	// adminDatabase is the database connected to while creating the others.
	adminDatabase = "postgres"
	readyTimeout  = 2 * time.Minute
)

func (o Options) withDefaults() (Options, error) {
	setString(&o.Namespace, DefaultNamespace)
	setString(&o.IP, DefaultIP)
	setString(&o.LogLevel, DefaultLogLevel)
	setString(&o.Postgres.Database, DefaultDatabase)
	setString(&o.Postgres.VisibilityDatabase, DefaultVisibilityDatabase)
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	if o.Shards == 0 {
		o.Shards = DefaultShards
	}
	return o, o.validate()
}

func setString(s *string, def string) {
	if *s == "" {
		*s = def
	}
}

func (o Options) validate() error {
	var errs []error
	if ip := net.ParseIP(o.IP); ip == nil || ip.IsUnspecified() {
		errs = append(errs, fmt.Errorf("IP %q: need a concrete address that clients and services can dial", o.IP))
	}
	if o.GRPCPort < 0 || o.GRPCPort > 65535 {
		errs = append(errs, fmt.Errorf("GRPCPort %d out of range", o.GRPCPort))
	}
	if o.UIPort < -1 || o.UIPort > 65535 {
		errs = append(errs, fmt.Errorf("UIPort %d out of range (0 = no UI, -1 = free port)", o.UIPort))
	}
	if o.Shards < 1 {
		errs = append(errs, fmt.Errorf("%d history shards: need at least 1", o.Shards))
	}
	switch strings.ToLower(o.LogLevel) {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("LogLevel %q: want debug, info, warn or error", o.LogLevel))
	}
	if _, _, err := net.SplitHostPort(o.Postgres.Addr); err != nil {
		errs = append(errs, fmt.Errorf("Postgres.Addr %q: want host:port", o.Postgres.Addr))
	}
	if o.Postgres.User == "" {
		errs = append(errs, errors.New("Postgres.User is empty"))
	}
	if o.Postgres.Database == o.Postgres.VisibilityDatabase {
		errs = append(errs, fmt.Errorf("the visibility database must not be the default one (%q)", o.Postgres.Database))
	}
	return errors.Join(errs...)
}

// sqlConfig is the persistence config of database on p.
func (p Postgres) sqlConfig(database string, conns int) *config.SQL {
	c := &config.SQL{
		PluginName:      PluginName,
		DatabaseName:    database,
		ConnectAddr:     p.Addr,
		ConnectProtocol: "tcp",
		User:            p.User,
		Password:        p.Password,
		MaxConns:        conns,
		MaxIdleConns:    conns,
		MaxConnLifetime: maxConnLifetime,
	}
	if p.SocketDir != "" {
		// pgx reads connection settings from the DSN's query: a host that
		// is a directory means its Unix socket, with Addr's port.
		c.ConnectAttributes = map[string]string{"host": p.SocketDir}
	}
	return c
}
