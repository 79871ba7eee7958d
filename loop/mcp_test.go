package loop

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// MCP tools: listed once a turn (and once a run) at the step boundary,
// recorded only when something changed, resolved into the step's tool set.

var (
	no         = false
	filesTools = []eventlog.MCPTool{
		{Name: "read", Description: "Read a file", InputSchema: json.RawMessage(`{"type":"object"}`), ReadOnly: true},
		{Name: "delete"},
		{Name: "write", Destructive: &no},
	}
	filesListing = eventlog.ServerTools{Server: "files", Digest: "sha256:f1", Tools: filesTools}
)

func mcpDriver(t *testing.T, tools ...string) *driver {
	return newDriver(t, signals.AgentOptions{Tools: tools})
}

// list finishes the in-flight listing with servers.
func (d *driver) list(servers ...eventlog.ServerTools) ListTools {
	d.t.Helper()
	c := take[ListTools](d)
	d.step(ToolsListed{Listing: eventlog.ToolsListed{Servers: servers}})
	return c
}

func TestMCPServersAreListedBeforeTheFirstStepAndTheirToolsOffered(t *testing.T) {
	d := mcpDriver(t, "clock", "mcp:files")
	d.followup("f1")
	d.resume()
	require.Empty(t, seen[ChooseModel](d), "the model is chosen once the tools are known")
	c := d.list(filesListing)
	require.Equal(t, "tools-1-1", c.ActivityID)
	require.Equal(t, signals.ListToolsInput{Servers: []string{"files"}, Known: map[string]string{}}, c.Input)

	call := inFlight[CallModel](d)[0]
	require.Equal(t, []string{"clock", "files__read", "files__delete", "files__write"}, call.Call.Tools)
	listed := only[eventlog.ToolsListed](d.events())
	require.Len(t, listed, 1)
	require.Equal(t, []eventlog.ServerTools{filesListing}, listed[0].Servers)
	require.Equal(t, eventlog.ActivityRef("tools-1-1"), d.l.log[indexOf(d, eventlog.TypeToolsListed)].Ref,
		"the listing is the activity's result: the journal only refers to it")
	d.requireOK()
}

func indexOf(d *driver, typ eventlog.Type) int {
	for i, env := range d.l.log {
		if env.Type == typ {
			return i
		}
	}
	d.t.Fatalf("no %s in the log", typ)
	return -1
}

func TestMCPCallsRunTheServerToolInTheModeItsAnnotationsGive(t *testing.T) {
	d := mcpDriver(t, "mcp:files")
	d.followup("f1")
	d.resume()
	d.list(filesListing)
	d.answerModel(calls("files__read", "files__read", "files__write", "files__delete"))
	starts := inFlight[StartTool](d)
	require.Equal(t, []string{"c0", "c1", "c2"}, callIDs(starts), "read-only calls run in parallel, the write one at a time beside them")
	require.Equal(t, &signals.MCPGrant{Server: "files", Tool: "read"}, starts[0].Input.MCP)
	require.Equal(t, "files__read", starts[0].Input.Name)
	require.Equal(t, signals.ToolParallel, starts[0].Call.Mode)
	require.Equal(t, signals.ToolSequential, starts[2].Call.Mode)
	require.Equal(t, "a1/1/1/c0", starts[0].Input.IdempotencyKey)
	d.finishTool("c0", "r0")
	d.finishTool("c1", "r1")
	require.Equal(t, []string{"c2"}, callIDs(inFlight[StartTool](d)), "the destructive call waits for every call before it")
	d.finishTool("c2", "r2")
	x := inFlight[StartTool](d)
	require.Equal(t, []string{"c3"}, callIDs(x), "the destructive call runs alone")
	require.Equal(t, signals.ToolExclusive, x[0].Call.Mode)
	require.Equal(t, &signals.MCPGrant{Server: "files", Tool: "delete"}, x[0].Input.MCP)
	d.finishTool("c3", "r3")
	require.Empty(t, inFlight[ListTools](d), "the second step of the turn lists nothing")
	d.answerModel(answer("done"))
	d.requireOK()
}

func TestMCPListingIsRefreshedEachTurnAndRecordedOnlyWhenItChanged(t *testing.T) {
	d := mcpDriver(t, "mcp:files", "mcp:search")
	d.followup("f1")
	d.resume()
	search := eventlog.ServerTools{Server: "search", Digest: "sha256:s1", Tools: []eventlog.MCPTool{{Name: "find", ReadOnly: true}}}
	d.list(filesListing, search)
	d.answerModel(answer("one"))

	d.followup("f2")
	d.resume()
	c := d.list(eventlog.ServerTools{Server: "files", Unchanged: true}, eventlog.ServerTools{Server: "search", Unchanged: true})
	require.Equal(t, map[string]string{"files": "sha256:f1", "search": "sha256:s1"}, c.Input.Known)
	require.Len(t, only[eventlog.ToolsListed](d.events()), 1, "nothing changed: nothing recorded")
	require.Contains(t, inFlight[CallModel](d)[0].Call.Tools, "search__find", "the tools recorded before stay")
	d.answerModel(answer("two"))

	d.followup("f3")
	d.resume()
	find2 := eventlog.ServerTools{Server: "search", Digest: "sha256:s2", Tools: []eventlog.MCPTool{{Name: "find2", ReadOnly: true}}}
	d.list(eventlog.ServerTools{Server: "files", Unchanged: true}, find2)
	listed := only[eventlog.ToolsListed](d.events())
	require.Len(t, listed, 2)
	tools := inFlight[CallModel](d)[0].Call.Tools
	require.Contains(t, tools, "search__find2")
	require.NotContains(t, tools, "search__find", "a server's new listing replaces its old one")
	require.Contains(t, tools, "files__read")
	d.requireOK()
}

func TestAFailedListingIsRecordedAndTheStepGoesOnWithTheToolsKnownBefore(t *testing.T) {
	d := mcpDriver(t, "clock", "mcp:files")
	d.followup("f1")
	d.resume()
	take[ListTools](d)
	d.step(ToolsListed{Err: errors.New("activity timed out")})
	require.Equal(t, []string{"clock"}, inFlight[CallModel](d)[0].Call.Tools, "no listing yet: no MCP tools")
	listed := only[eventlog.ToolsListed](d.events())
	require.Len(t, listed, 1)
	require.Equal(t, "files", listed[0].Servers[0].Server)
	require.Contains(t, listed[0].Servers[0].Error, "activity timed out")
	require.Equal(t, eventlog.Ref(""), d.l.log[indexOf(d, eventlog.TypeToolsListed)].Ref, "the loop made this listing: it is journaled whole")
	d.answerModel(answer("one"))

	d.followup("f2")
	d.resume()
	d.list(filesListing)
	d.answerModel(answer("two"))
	d.followup("f3")
	d.resume()
	take[ListTools](d)
	d.step(ToolsListed{Err: errors.New("server down")})
	require.Contains(t, inFlight[CallModel](d)[0].Call.Tools, "files__read", "a failed listing keeps the last good one")
	d.requireOK()
}

func TestAMalformedListingCountsAsFailed(t *testing.T) {
	huge := eventlog.MCPTool{Name: "big", InputSchema: json.RawMessage(`"` + string(make([]byte, signals.MaxMCPInputSchema)) + `"`)}
	for name, listing := range map[string][]eventlog.ServerTools{
		"another server":    {{Server: "other", Tools: filesTools}},
		"no entry":          nil,
		"unchanged unknown": {{Server: "files", Unchanged: true}},
		"schema too big":    {{Server: "files", Tools: []eventlog.MCPTool{huge}}},
		"a nameless tool":   {{Server: "files", Tools: []eventlog.MCPTool{{Description: "?"}}}},
	} {
		t.Run(name, func(t *testing.T) {
			d := mcpDriver(t, "mcp:files")
			d.followup("f1")
			d.resume()
			d.list(listing...)
			listed := only[eventlog.ToolsListed](d.events())
			require.Len(t, listed, 1)
			require.Empty(t, listed[0].Servers[0].Tools)
			require.Contains(t, listed[0].Servers[0].Error, "listing failed")
			require.Empty(t, inFlight[CallModel](d)[0].Call.Tools)
			d.requireOK()
		})
	}
}

func TestAGrantOfOneToolOffersOnlyThatTool(t *testing.T) {
	d := mcpDriver(t, "mcp:files/read")
	d.followup("f1")
	d.resume()
	d.list(filesListing)
	require.Equal(t, []string{"files__read"}, inFlight[CallModel](d)[0].Call.Tools)
	d.answerModel(calls("files__delete"))
	r := only[eventlog.ToolResult](d.events())
	require.Len(t, r, 1)
	require.Equal(t, eventlog.ToolUnavailable, r[0].Outcome)
	require.Contains(t, r[0].Content, "available: files__read")
	require.Empty(t, inFlight[StartTool](d))
	d.requireOK()
}

func TestAnMCPToolNamedLikeAnotherToolIsLeftOut(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{Tools: []string{"mcp:files", "files__read"}}, func(c *Config) {
		c.Modes = map[string]signals.ToolMode{"files__read": signals.ToolExclusive}
	})
	d.followup("f1")
	d.resume()
	d.list(filesListing)
	require.Equal(t, []string{"files__delete", "files__write", "files__read"}, inFlight[CallModel](d)[0].Call.Tools)
	d.answerModel(calls("files__read"))
	st := inFlight[StartTool](d)[0]
	require.Nil(t, st.Input.MCP, "the worker's own tool wins")
	require.Equal(t, signals.ToolExclusive, st.Call.Mode)
}

func TestCancelingWhileListingEndsTheTurnWithoutAStep(t *testing.T) {
	d := mcpDriver(t, "mcp:files")
	d.followup("f1")
	d.resume()
	d.step(Cancel{Cause: "stop"})
	require.Equal(t, 1, d.interrupted)
	d.cancelInflight()
	require.Empty(t, inFlight[CallModel](d))
	require.Empty(t, only[eventlog.StepStart](d.events()))
	require.Empty(t, only[eventlog.ToolsListed](d.events()), "a canceled listing records nothing")
	ends := only[eventlog.TurnEnd](d.events())
	require.Len(t, ends, 1)
	require.Equal(t, eventlog.EndCanceled, ends[0].Reason)
	d.requireOK()
}

func TestApprovalPolicyNamesMCPToolsByServer(t *testing.T) {
	d := newDriver(t, signals.AgentOptions{Tools: []string{"mcp:files"},
		Approval: &signals.ApprovalPolicy{Tools: []string{"mcp:files/delete"}}})
	d.followup("f1")
	d.resume()
	d.list(filesListing)
	d.answerModel(calls("files__read", "files__delete"))
	require.Equal(t, []string{"c0"}, callIDs(inFlight[StartTool](d)))
	d.finishTool("c0", "r0")
	asked := only[eventlog.DecisionRequested](d.events())
	require.Len(t, asked, 1)
	require.Equal(t, "c1", asked[0].CallID)
	require.Equal(t, "files__delete", asked[0].Name)
}

func TestAContinuedRunListsAgainBeforeItsFirstStep(t *testing.T) {
	opts := signals.AgentOptions{Tools: []string{"mcp:files"}}
	d := newDriver(t, opts)
	d.followup("f1")
	d.resume()
	d.list(filesListing)
	d.answerModel(calls("files__read"))
	take[StartTool](d)
	out := signals.ToolOutput{CallID: "c0", Name: "files__read", Content: "r"}
	d.l.Step(d.now, ToolDone{CallID: "c0", Output: out, Ref: "act:tool-1-1-0"})
	d.l.Step(d.now, ToolPostRan{CallID: "c0", Output: out})
	require.True(t, d.l.AtBoundary())
	d.step(Continue{})
	seed, err := d.l.Seed()
	require.NoError(t, err)

	next := &driver{t: t, l: Restore(Config{AgentID: "a1", Options: opts}, seed), now: d.now}
	next.resume()
	c := next.list(filesListing)
	require.Equal(t, "tools-1-2", c.ActivityID)
	require.Empty(t, c.Input.Known, "the new run's log holds no listing yet")
	require.Contains(t, inFlight[CallModel](next)[0].Call.Tools, "files__read")
	next.answerModel(answer("done"))
	next.requireOK()
}

func TestAgentsWithoutMCPToolsNeverList(t *testing.T) {
	d := mcpDriver(t, "clock")
	d.followup("f1")
	d.resume()
	require.Empty(t, inFlight[ListTools](d))
	require.Len(t, inFlight[CallModel](d), 1)
}
