package loop

import (
	"fmt"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// MCP tools. An agent whose tools name MCP servers ("mcp:<server>") lists
// them before the first step of each turn, and before the first step of
// each run (a continued run starts with no listing): the step boundary
// emits ListTools and the step's tool set is resolved from what the run
// recorded. Only a listing that changed something is recorded, so a turn
// whose servers answer Unchanged adds no tool bytes to history.

// mcpState is what the run knows of its MCP servers.
type mcpState struct {
	servers  []string          // the servers the agent's tools name, in order
	listings eventlog.Listings // recorded in this run
	listed   int               // the turn last listed in this run; 0: none yet
}

// listingDue reports whether the step about to be proposed lists first.
func (l *Loop) listingDue() bool {
	return len(l.mcp.servers) > 0 && l.mcp.listed != l.turn.step.Turn
}

// listTools asks for the servers' tools, sending the digests of the
// listings recorded so far so unchanged servers answer in a few bytes.
func (l *Loop) listTools() {
	s := l.turn.step
	l.moveTo(listing)
	l.emit(ListTools{
		ActivityID: signals.ListToolsActivityID(s.Turn, s.Step),
		Summary:    fmt.Sprintf("list MCP tools turn %d", s.Turn),
		Input:      signals.ListToolsInput{Servers: l.mcp.servers, Known: l.known()},
	})
}

// known are the digests of the listings recorded so far, by server.
func (l *Loop) known() map[string]string {
	out := map[string]string{}
	for _, name := range l.mcp.servers {
		if d := l.mcp.listings[name].Digest; d != "" {
			out[name] = d
		}
	}
	return out
}

// toolsListed records what changed and goes on to choose the model. A
// listing that failed, or whose result is malformed, is recorded as an
// error for each server: the step goes on with the tools listed before
// (none in a run's first listing), never stuck on a server.
func (l *Loop) toolsListed(now time.Time, in ToolsListed) {
	s := l.turn.step
	l.mcp.listed = s.Turn
	if l.state.Canceling != "" {
		l.failTurn(now, l.state.Canceling)
		return
	}
	listing, ref := in.Listing, eventlog.ActivityRef(signals.ListToolsActivityID(s.Turn, s.Step))
	err := in.Err
	if err == nil {
		err = l.checkListing(listing)
	}
	if err != nil {
		why := signals.BoundCause("listing failed: " + err.Error())
		listing, ref = eventlog.ToolsListed{Servers: make([]eventlog.ServerTools, len(l.mcp.servers))}, ""
		for i, name := range l.mcp.servers {
			listing.Servers[i] = eventlog.ServerTools{Server: name, Error: why}
		}
	}
	if changed(listing) {
		l.record(now, ref, listing)
		l.mcp.listings.Apply(listing)
	}
	l.moveTo(choosing)
	l.emit(ChooseModel{Default: l.state.Selection})
}

// checkListing checks a listing activity's result: one entry per server
// asked, in order, within the bounds the step's tool set relies on.
func (l *Loop) checkListing(t eventlog.ToolsListed) error {
	if len(t.Servers) != len(l.mcp.servers) {
		return fmt.Errorf("%d servers listed, %d asked", len(t.Servers), len(l.mcp.servers))
	}
	for i, s := range t.Servers {
		switch {
		case s.Server != l.mcp.servers[i]:
			return fmt.Errorf("server %q listed in place of %q", s.Server, l.mcp.servers[i])
		case len(s.Tools) > signals.MaxMCPToolsPerServer:
			return fmt.Errorf("server %q listed %d tools, at most %d", s.Server, len(s.Tools), signals.MaxMCPToolsPerServer)
		case s.Unchanged && l.mcp.listings[s.Server].Digest == "":
			return fmt.Errorf("server %q answered unchanged to a run that has no listing of it", s.Server)
		}
		for _, tool := range s.Tools {
			if tool.Name == "" || len(tool.Description) > signals.MaxMCPDescription || len(tool.InputSchema) > signals.MaxMCPInputSchema {
				return fmt.Errorf("server %q listed tool %.64q beyond the bounds", s.Server, tool.Name)
			}
		}
	}
	return nil
}

// changed reports whether a listing holds anything the log has not.
func changed(t eventlog.ToolsListed) bool {
	for _, s := range t.Servers {
		if !s.Unchanged {
			return true
		}
	}
	return false
}

// mcpTools expands the MCP entry g into the tools the listings hold.
func (l *Loop) mcpTools(g signals.MCPGrant) []Tool {
	var out []Tool
	for _, t := range l.mcp.listings[g.Server].Tools {
		if g.Tool == "" || g.Tool == t.Name {
			out = append(out, Tool{Name: signals.MCPToolName(g.Server, t.Name), Mode: signals.MCPMode(t),
				MCP: &signals.MCPGrant{Server: g.Server, Tool: t.Name}})
		}
	}
	return out
}
