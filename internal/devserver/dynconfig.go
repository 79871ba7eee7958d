package devserver

import (
	"sync/atomic"

	"go.temporal.io/server/common/dynamicconfig"
)

// dynamicClient serves the server's static dynamic config, except that it
// forces search attribute caches to read through to the database only
// once Start added search attributes to an existing database, so they take
// effect at once. Forcing costs a database read of the namespace on every
// search attribute access (each upsert, each visibility write, each
// history page holding an upsert), all on the one connection the SQLite
// plugin gives the database: a server that made its namespace with the
// attributes already (every fresh one) does not pay it.
type dynamicClient struct {
	static dynamicconfig.StaticClient
	force  atomic.Bool
}

var forceRefreshKey = dynamicconfig.ForceSearchAttributesCacheRefreshOnRead.Key()

func (c *dynamicClient) GetValue(key dynamicconfig.Key) []dynamicconfig.ConstrainedValue {
	if key == forceRefreshKey && c.force.Load() {
		return []dynamicconfig.ConstrainedValue{{Value: true}}
	}
	return c.static.GetValue(key)
}
