package mcp_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/mcp"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/signals"
)

func TestACallHearsItsServersProgressWhileItRuns(t *testing.T) {
	transports(t, func(t *testing.T, f *fixture) {
		var (
			mu  sync.Mutex
			got []tools.Progress
		)
		ctx := tools.WithProgress(timeout(t, 20*time.Second), func(p tools.Progress) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, p)
			_ = os.WriteFile(filepath.Join(f.state, "go-on"), nil, 0o600) // the server waits for it
		})
		res, err := (&mcp.Caller{Sessions: f.manager()}).CallMCP(ctx, signals.MCPGrant{Server: "srv", Tool: "progress"},
			tools.Call{Name: "srv__progress", Arguments: []byte(`{}`)})
		require.NoError(t, err)
		require.Equal(t, "progressed", res.Content, "the progress arrived while the call ran")
		mu.Lock()
		defer mu.Unlock()
		require.Equal(t, []tools.Progress{{Progress: 1, Total: 2, Message: "halfway"}}, got)
	})
}

func TestACallThatAsksForNoProgressSendsNoToken(t *testing.T) {
	require.Equal(t, "no token", call(t, newFixture(t, false).manager(), "progress", `{}`).Content)
}
