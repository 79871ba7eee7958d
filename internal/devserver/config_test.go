package devserver

import (
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/common/log"

	"github.com/tetherdev/tether/signals"
)

func TestDefaultSearchAttributesMatchSignals(t *testing.T) {
	got := DefaultSearchAttributes()
	require.Len(t, got, len(signals.SearchAttributeKinds))
	require.Equal(t, enumspb.INDEXED_VALUE_TYPE_KEYWORD, got[signals.AttrStatus])
	require.Equal(t, enumspb.INDEXED_VALUE_TYPE_INT, got[signals.AttrTurn])
}

func TestDynamicConfigMergesOverDefaults(t *testing.T) {
	dc := dynamicConfig(map[string]any{
		"frontend.namespaceRPS.visibility":        5,
		"limit.historyCount.suggestContinueAsNew": 40,
	})
	require.Equal(t, 5, dc[dynamicconfig.FrontendMaxNamespaceVisibilityRPSPerInstance.Key()])
	require.Equal(t, 40, dc[dynamicconfig.HistoryCountSuggestContinueAsNew.Key()])
	require.Equal(t, 8096, dc[dynamicconfig.HistoryCacheHostLevelMaxSize.Key()])
	require.Equal(t, 1, dc[dynamicconfig.MatchingNumTaskqueueReadPartitions.Key()])
	require.Equal(t, true, dc[dynamicconfig.EnableActivityEagerExecution.Key()])
}

func TestOptionsDefaultsAndValidation(t *testing.T) {
	o, err := Options{}.withDefaults()
	require.NoError(t, err)
	require.Equal(t, Options{Namespace: "default", IP: "127.0.0.1", LogLevel: "error"}, o)

	for name, bad := range map[string]Options{
		"unspecified IP": {IP: "0.0.0.0"},
		"not an IP":      {IP: "localhost"},
		"gRPC port":      {GRPCPort: -1},
		"UI port":        {UIPort: -2},
		"log level":      {LogLevel: "chatty"},
	} {
		_, err := bad.withDefaults()
		require.Error(t, err, name)
	}
}

func TestSearchAttributeCachesReadThroughOnlyAfterAttributesWereAdded(t *testing.T) {
	dc := &dynamicClient{static: dynamicConfig(nil)}
	force := dynamicconfig.ForceSearchAttributesCacheRefreshOnRead.Get(dynamicconfig.NewCollection(dc, log.NewNoopLogger()))
	require.False(t, force(), "a fresh namespace has its attributes: caches are enough")
	dc.force.Store(true)
	require.True(t, force(), "attributes added to an existing database take effect at once")
	require.Equal(t, 1, dc.GetValue(dynamicconfig.MatchingNumTaskqueueReadPartitions.Key())[0].Value)
}
