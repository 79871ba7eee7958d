package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
)

func TestOptionsDefaultToOneNodeOnLoopbackWithTwoDatabases(t *testing.T) {
	o, err := Options{Postgres: Postgres{Addr: "localhost:5432", User: "temporal"}}.withDefaults()
	require.NoError(t, err)
	require.Equal(t, DefaultNamespace, o.Namespace)
	require.Equal(t, DefaultIP, o.IP)
	require.Equal(t, DefaultShards, o.Shards)
	require.Equal(t, DefaultRetention, o.Retention)
	require.Equal(t, DefaultDatabase, o.Postgres.Database)
	require.Equal(t, DefaultVisibilityDatabase, o.Postgres.VisibilityDatabase)
}

func TestOptionsRefuseWhatCannotRun(t *testing.T) {
	pg := Postgres{Addr: "localhost:5432", User: "temporal"}
	for name, o := range map[string]Options{
		"wildcard IP":            {Postgres: pg, IP: "0.0.0.0"},
		"port out of range":      {Postgres: pg, GRPCPort: 70000},
		"UI port out of range":   {Postgres: pg, UIPort: -2},
		"no shards":              {Postgres: pg, Shards: -1},
		"unknown log level":      {Postgres: pg, LogLevel: "chatty"},
		"postgres without port":  {Postgres: Postgres{Addr: "localhost", User: "temporal"}},
		"postgres without user":  {Postgres: Postgres{Addr: "localhost:5432"}},
		"visibility in the same": {Postgres: Postgres{Addr: "localhost:5432", User: "u", Database: "t", VisibilityDatabase: "t"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := o.withDefaults()
			require.Error(t, err)
		})
	}
}

func TestASocketDirectoryBecomesPgxHostWithTheAddressPort(t *testing.T) {
	p := Postgres{Addr: "localhost:5432", SocketDir: "/tmp/pg", User: "temporal", Password: "pw"}
	c := p.sqlConfig("temporal", 7)
	require.Equal(t, PluginName, c.PluginName)
	require.Equal(t, "localhost:5432", c.ConnectAddr)
	require.Equal(t, map[string]string{"host": "/tmp/pg"}, c.ConnectAttributes)
	require.Equal(t, 7, c.MaxConns)
	require.Nil(t, Postgres{Addr: "db:5432"}.sqlConfig("temporal", 1).ConnectAttributes, "TCP without a socket directory")
}

func TestServerConfigPutsVisibilityInItsOwnStore(t *testing.T) {
	o, err := Options{Postgres: Postgres{Addr: "localhost:5432", User: "temporal"}}.withDefaults()
	require.NoError(t, err)
	c := serverConfig(o, ports{frontend: 1, frontendHTTP: 2, history: 3, matching: 4, worker: 5})
	require.Equal(t, DefaultDatabase, c.Persistence.DataStores[c.Persistence.DefaultStore].SQL.DatabaseName)
	require.Equal(t, DefaultVisibilityDatabase, c.Persistence.DataStores[c.Persistence.VisibilityStore].SQL.DatabaseName)
	require.EqualValues(t, DefaultShards, c.Persistence.NumHistoryShards)
	require.Equal(t, "127.0.0.1:1", c.PublicClient.HostPort)
}

func TestProbeQueryNamesEveryAttributeWithAValueOfItsType(t *testing.T) {
	q := probeQuery(map[string]enumspb.IndexedValueType{
		"B": enumspb.INDEXED_VALUE_TYPE_INT, "A": enumspb.INDEXED_VALUE_TYPE_KEYWORD, "C": enumspb.INDEXED_VALUE_TYPE_BOOL,
	})
	require.Equal(t, "A = '' AND B = 0 AND C = false", q)
}
