package mcp_test

import (
	"context"
	"fmt"
	"os"

	"github.com/tetherdev/tether/activities/mcp"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/signals"
)

// workerEnv, set to the test server's path, makes the test binary a
// worker (see worker) instead of running tests; workerStateEnv names its
// server's -state directory.
const workerEnv, workerStateEnv = "TETHER_MCP_TEST_WORKER", "TETHER_MCP_TEST_WORKER_STATE"

// worker starts the test server as srv through a Manager, prints "pid
// <server's pid>" and then calls a tool that works for ten minutes, to the
// end even if its client is gone, as a worker in the middle of a long call.
func worker(bin, state string) int {
	data := fmt.Sprintf(`{"servers":{"srv":{"command":%q,"args":["-state",%q]}}}`, bin, state)
	c, err := mcp.Parse([]byte(data), func(string) string { return "" })
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	caller := &mcp.Caller{Sessions: mcp.NewManager(c, quiet)}
	grant := signals.MCPGrant{Server: "srv", Tool: "pid"}
	res, err := caller.CallMCP(context.Background(), grant, tools.Call{Arguments: []byte(`{}`)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("pid", res.Content)
	grant.Tool = "work"
	_, err = caller.CallMCP(context.Background(), grant, tools.Call{Arguments: []byte(`{"ms":600000}`)})
	fmt.Fprintln(os.Stderr, "the long call ended:", err)
	return 1
}
