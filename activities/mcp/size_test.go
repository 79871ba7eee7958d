package mcp_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/activities/mcp"
	"github.com/tetherdev/tether/signals"
)

func encoded(t *testing.T, v any) int {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return len(b)
}

func TestAServersToolsAreCutAtItsByteBoundToTheByte(t *testing.T) {
	m := newFixture(t, false).manager()
	in := signals.ListToolsInput{Servers: []string{"srv"}}
	full := list(t, &mcp.Lister{Sessions: m, ServerBytes: 1 << 30}, in).Servers[0]
	n, size := len(full.Tools), encoded(t, full.Tools)

	at := list(t, &mcp.Lister{Sessions: m, ServerBytes: size}, in).Servers[0]
	require.Equal(t, full, at, "tools that take the bound exactly are all offered")

	over := list(t, &mcp.Lister{Sessions: m, ServerBytes: size - 1}, in).Servers[0]
	require.Equal(t, full.Tools[:n-1], over.Tools, "one byte less leaves the last tool out")
	require.Contains(t, over.Error, fmt.Sprintf("only the first %d of these %d tools are offered: the %d take", n-1, n, n))
	require.NotEqual(t, full.Digest, over.Digest)
}

func TestAServerWithMaximalToolsIsListedAtOnceWithTheToolsThatFit(t *testing.T) {
	f := newFixture(t, false, "-big", "128")
	m := mcp.NewManager(f.config(map[string]any{"big": f.entry(), "srv": newFixture(t, false).entry()}), quiet)
	t.Cleanup(func() { _ = m.Close() })

	started := time.Now()
	out := list(t, &mcp.Lister{Sessions: m}, signals.ListToolsInput{Servers: []string{"big", "srv"}})
	require.Less(t, time.Since(started), 5*time.Second)
	big := out.Servers[0]
	require.NotEmpty(t, big.Tools)
	require.LessOrEqual(t, encoded(t, big.Tools), mcp.MaxServerListingBytes)
	require.Contains(t, big.Error, fmt.Sprintf("only the first %d of these 128 tools are offered: the 128 take", len(big.Tools)))
	require.Contains(t, big.Error, fmt.Sprintf("over the %d bytes a server's listing may hold", mcp.MaxServerListingBytes))
	require.NotEmpty(t, out.Servers[1].Tools, "the other server keeps its tools")
	require.NotContains(t, out.Servers[1].Error, "only the first")
	require.Less(t, encoded(t, out), mcp.MaxListingBytes)
	t.Log(big.Error)
}

func TestAListingOverItsBoundFailsAtOnceNamingItsServers(t *testing.T) {
	f := newFixture(t, false)
	m := mcp.NewManager(f.config(map[string]any{"a": f.entry(), "b": f.entry()}), quiet)
	t.Cleanup(func() { _ = m.Close() })
	in := signals.ListToolsInput{Servers: []string{"a", "b"}}
	full := list(t, &mcp.Lister{Sessions: m}, in)
	size := encoded(t, full)

	require.Equal(t, full, list(t, &mcp.Lister{Sessions: m, MaxBytes: size}, in), "a listing of the bound exactly is whole")

	env := activityEnv()
	mcp.Register(env, &mcp.Lister{Sessions: m, MaxBytes: size - 1})
	_, err := env.ExecuteActivity(signals.ListToolsActivity, in)
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr), "want an ApplicationError, got %T: %v", err, err)
	require.Equal(t, mcp.ErrListingTooLarge, appErr.Type())
	require.True(t, appErr.NonRetryable(), "the same servers list the same tools again")
	n := len(full.Servers[0].Tools)
	require.Contains(t, appErr.Error(), fmt.Sprintf("%d bytes), over the %d bytes a listing may hold", size, size-1))
	require.Contains(t, appErr.Error(), fmt.Sprintf(`MCP server "a" lists %d tools in`, n))
	require.Contains(t, appErr.Error(), fmt.Sprintf(`MCP server "b" lists %d tools in`, n))
	t.Log(appErr.Error())
}
