package mcp_test

import (
	"context"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/activities/mcp"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// list runs the ListTools activity in a test activity environment.
func list(t *testing.T, l *mcp.Lister, in signals.ListToolsInput) eventlog.ToolsListed {
	t.Helper()
	env := activityEnv()
	mcp.Register(env, l)
	val, err := env.ExecuteActivity(signals.ListToolsActivity, in)
	require.NoError(t, err)
	var out eventlog.ToolsListed
	require.NoError(t, val.Get(&out))
	require.Len(t, out.Servers, len(in.Servers))
	return out
}

func tool(t *testing.T, st eventlog.ServerTools, name string) eventlog.MCPTool {
	t.Helper()
	for _, tl := range st.Tools {
		if tl.Name == name {
			return tl
		}
	}
	require.Failf(t, "tool not listed", "%s in %+v", name, st)
	return eventlog.MCPTool{}
}

func TestListingMapsAnnotationsToExecutionModes(t *testing.T) {
	transports(t, func(t *testing.T, f *fixture) {
		st := list(t, &mcp.Lister{Sessions: f.manager()}, signals.ListToolsInput{Servers: []string{"srv"}}).Servers[0]
		require.Equal(t, "srv", st.Server)
		require.True(t, strings.HasPrefix(st.Digest, "sha256:"), st.Digest)

		echo := tool(t, st, "echo")
		require.Equal(t, "Echo text back.", echo.Description)
		require.JSONEq(t, `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`, string(echo.InputSchema))
		require.True(t, echo.Idempotent)
		require.Equal(t, signals.ToolParallel, signals.MCPMode(echo), "read-only tools run in parallel")
		require.Equal(t, signals.ToolSequential, signals.MCPMode(tool(t, st, "append_note")), "a write that is not destructive runs in order")
		deleteNotes := tool(t, st, "delete_notes")
		require.Nil(t, deleteNotes.Destructive, "the server said nothing")
		require.Equal(t, signals.ToolExclusive, signals.MCPMode(deleteNotes), "MCP's default: destructive, run alone")
	})
}

func TestListingAppliesTheBoundsAndSaysWhatItLeftOut(t *testing.T) {
	transports(t, func(t *testing.T, f *fixture) {
		st := list(t, &mcp.Lister{Sessions: f.manager()}, signals.ListToolsInput{Servers: []string{"srv"}}).Servers[0]
		require.Len(t, tool(t, st, "huge_description").Description, signals.MaxMCPDescription)
		for _, tl := range st.Tools {
			require.NotEqual(t, "huge_schema", tl.Name)
		}
		require.Contains(t, st.Error, `tool "huge_schema" left out: its input schema has`)
		require.NotEmpty(t, st.Digest, "tools left out still leave a listing")

		applied := eventlog.Listings{}
		applied.Apply(eventlog.ToolsListed{Servers: []eventlog.ServerTools{st}})
		require.Equal(t, st, applied["srv"], "a listing that left tools out is still in use")
	})
}

func TestListingOffersAtMostMaxToolsPerServer(t *testing.T) {
	f := newFixture(t, false, "-many", "200")
	st := list(t, &mcp.Lister{Sessions: f.manager()}, signals.ListToolsInput{Servers: []string{"srv"}}).Servers[0]
	require.Equal(t, signals.MaxMCPToolsPerServer, len(st.Tools), "tools left out for their size do not count")
	require.Contains(t, st.Error, "more than 128 tools: only the first 128 are offered")
}

func TestAnUnchangedServerAnswersUnchangedAndAChangedOneListsAgain(t *testing.T) {
	transports(t, func(t *testing.T, f *fixture) {
		m := f.manager()
		l := &mcp.Lister{Sessions: m}
		first := list(t, l, signals.ListToolsInput{Servers: []string{"srv"}}).Servers[0]

		again := list(t, l, signals.ListToolsInput{Servers: []string{"srv"}, Known: map[string]string{"srv": first.Digest}})
		require.Equal(t, []eventlog.ServerTools{{Server: "srv", Unchanged: true}}, again.Servers, "no tool bytes again")
		other := list(t, l, signals.ListToolsInput{Servers: []string{"srv"}, Known: map[string]string{"srv": "sha256:old"}})
		require.Equal(t, first, other.Servers[0], "another digest gets the whole listing")

		call(t, m, "grow", `{}`)
		grown := list(t, l, signals.ListToolsInput{Servers: []string{"srv"}, Known: map[string]string{"srv": first.Digest}}).Servers[0]
		require.False(t, grown.Unchanged)
		require.NotEqual(t, first.Digest, grown.Digest)
		tool(t, grown, "extra")
	})
}

func TestEqualListingsHaveEqualDigestsAcrossServerProcesses(t *testing.T) {
	f := newFixture(t, false)
	one := list(t, &mcp.Lister{Sessions: f.manager()}, signals.ListToolsInput{Servers: []string{"srv"}}).Servers[0]
	two := list(t, &mcp.Lister{Sessions: f.manager()}, signals.ListToolsInput{Servers: []string{"srv"}}).Servers[0]
	require.Equal(t, one.Digest, two.Digest)
}

// hungServer accepts connections and never answers.
func hungServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { _ = c.Close() })
		}
	}()
	return "http://" + ln.Addr().String() + "/mcp"
}

// closedPort is a URL nothing listens at.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "http://" + addr + "/mcp"
}

func TestADeadServerGetsAnErrorEntryWithinTheTimeoutAndTheOthersTheirTools(t *testing.T) {
	f := newFixture(t, false)
	falseBin, err := exec.LookPath("false")
	require.NoError(t, err)
	m := mcp.NewManager(f.config(map[string]any{
		"live":    f.entry(),
		"hung":    map[string]any{"url": hungServer(t)},
		"refused": map[string]any{"url": closedPort(t) + "?token=s3cret#frag"},
		"exits":   map[string]any{"command": falseBin},
	}), quiet)
	t.Cleanup(func() { _ = m.Close() })

	started := time.Now()
	out := list(t, &mcp.Lister{Sessions: m, Timeout: time.Second},
		signals.ListToolsInput{Servers: []string{"hung", "live", "refused", "exits", "unknown"}})
	require.Less(t, time.Since(started), 3*time.Second, "servers are listed at once, each within the timeout")

	byName := map[string]eventlog.ServerTools{}
	for i, st := range out.Servers {
		require.Equal(t, []string{"hung", "live", "refused", "exits", "unknown"}[i], st.Server, "entries in the order asked")
		byName[st.Server] = st
	}
	require.NotEmpty(t, byName["live"].Tools)
	require.Contains(t, byName["hung"].Error, "no answer within the listing timeout")
	require.Contains(t, byName["refused"].Error, "connection refused")
	require.Contains(t, byName["refused"].Error, "/mcp?…", "the URL is named")
	require.NotContains(t, byName["refused"].Error, "s3cret", "without its query: it may hold a token")
	require.Contains(t, byName["exits"].Error, `connect to MCP server "exits"`)
	require.Equal(t, `MCP server "unknown" is not configured on this worker`, byName["unknown"].Error)
	for _, name := range []string{"hung", "refused", "exits", "unknown"} {
		require.Empty(t, byName[name].Tools, name)
		require.Empty(t, byName[name].Digest, name)
	}
}

func TestAnHTTPServerGetsTheHeadersTheConfigTakesFromTheEnvironment(t *testing.T) {
	f := newFixture(t, true, "-require-header", "Authorization: Bearer s3cret")
	f.env["SEARCH_AUTH"] = "Bearer s3cret"
	m := mcp.NewManager(f.config(map[string]any{
		"with":    map[string]any{"url": f.url, "headers_env": map[string]string{"Authorization": "SEARCH_AUTH"}},
		"without": map[string]any{"url": f.url},
	}), quiet)
	t.Cleanup(func() { _ = m.Close() })

	out := list(t, &mcp.Lister{Sessions: m}, signals.ListToolsInput{Servers: []string{"with", "without"}})
	require.NotEmpty(t, out.Servers[0].Tools)
	require.NotContains(t, out.Servers[0].Error, "Unauthorized")
	require.Empty(t, out.Servers[1].Tools)
	require.Contains(t, out.Servers[1].Error, "Unauthorized")
}

// call runs tool of "srv" through a Caller over m and returns its result.
func call(t *testing.T, m *mcp.Manager, name, args string) tools.Result {
	t.Helper()
	res, err := (&mcp.Caller{Sessions: m}).CallMCP(context.Background(), signals.MCPGrant{Server: "srv", Tool: name},
		tools.Call{Name: signals.MCPToolName("srv", name), Arguments: []byte(args), IdempotencyKey: "a/1/1/c1"})
	require.NoError(t, err)
	return res
}

func TestAListingReplacesASessionTheServerForgot(t *testing.T) {
	f := newFixture(t, true)
	p, m := f.proxied()
	l := &mcp.Lister{Sessions: m}
	first := list(t, l, signals.ListToolsInput{Servers: []string{"srv"}}).Servers[0]
	p.next.Store(http.StatusNotFound) // what a restarted server says of an old session
	again := list(t, l, signals.ListToolsInput{Servers: []string{"srv"}}).Servers[0]
	require.Equal(t, first.Error, again.Error, "a new session lists, the lost one is not reported")
	require.Equal(t, first.Digest, again.Digest)
}
