package signals

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tetherdev/tether/eventlog"
)

// MCP tools. A worker connects to the MCP servers its configuration names;
// an agent enables a server's tools by listing "mcp:<server>" among its
// tools, or one tool with "mcp:<server>/<tool>". The loop lists the
// servers' tools with ListToolsActivity at most once a turn and records
// the listing (eventlog.ToolsListed); the model sees each tool as
// MCPToolName(server, tool).

// MCPPrefix starts a tool entry that enables MCP tools.
const MCPPrefix = "mcp:"

// ListToolsActivity lists the tools of an agent's MCP servers.
const ListToolsActivity = "tether.ListTools"

// ListToolsActivityID is the ID of the listing made before step turn.step:
// "tools-<turn>-<step>".
func ListToolsActivityID(turn, step int) string {
	return "tools-" + strconv.Itoa(turn) + "-" + strconv.Itoa(step)
}

// ListToolsInput asks for the tools of Servers. Known holds, by server,
// the digest of the listing the run recorded last: a server whose tools
// still have that digest answers Unchanged. The result is an
// eventlog.ToolsListed with one entry per server, in order; a server that
// cannot be listed gets an entry with Error, never a failed activity, but
// for a listing over mcp.MaxListingBytes, which fails at once, not
// retryable, as tether.MCPListingTooLarge.
type ListToolsInput struct {
	Servers []string          `json:"servers"`
	Known   map[string]string `json:"known,omitempty"`
}

// Bounds of a listing. A tool over them is left out and named in its
// server's Error.
const (
	MaxMCPServerName      = 32
	MaxMCPToolsPerServer  = 128
	MaxMCPDescription     = 4 << 10
	MaxMCPInputSchema     = 16 << 10
	MaxMCPToolNameBytes   = 64 // what providers accept as a function name
	mcpToolNameSeparator  = "__"
	mcpToolNameCharacters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
)

// MCPGrant is a parsed "mcp:<server>[/<tool>]" tool entry. Tool is empty
// when the entry enables every tool of the server.
type MCPGrant struct {
	Server string `json:"server"`
	Tool   string `json:"tool,omitempty"`
}

// ParseMCPGrant reads an MCP tool entry; ok is false for other tools.
func ParseMCPGrant(entry string) (g MCPGrant, ok bool) {
	rest, ok := strings.CutPrefix(entry, MCPPrefix)
	if !ok {
		return MCPGrant{}, false
	}
	g.Server, g.Tool, _ = strings.Cut(rest, "/")
	return g, true
}

// String is the tool entry of g.
func (g MCPGrant) String() string {
	if g.Tool == "" {
		return MCPPrefix + g.Server
	}
	return MCPPrefix + g.Server + "/" + g.Tool
}

// ValidMCPServerName reports whether name may name an MCP server: 1 to 32
// of [a-zA-Z0-9_-].
func ValidMCPServerName(name string) bool {
	return name != "" && len(name) <= MaxMCPServerName && strings.Trim(name, mcpToolNameCharacters) == "" &&
		!strings.Contains(name, mcpToolNameSeparator)
}

// MCPServers lists the servers tools enables, each once, in order.
func MCPServers(tools []string) []string {
	var out []string
	for _, t := range tools {
		if g, ok := ParseMCPGrant(t); ok && !slices.Contains(out, g.Server) {
			out = append(out, g.Server)
		}
	}
	return out
}

// MCPToolName is the name the model calls tool of server by:
// "<server>__<tool>", with every character providers refuse replaced by
// "_" and cut to 64 bytes.
func MCPToolName(server, tool string) string {
	name := []byte(server + mcpToolNameSeparator + tool)
	for i, c := range name {
		if !strings.ContainsRune(mcpToolNameCharacters, rune(c)) {
			name[i] = '_'
		}
	}
	return string(name[:min(len(name), MaxMCPToolNameBytes)])
}

// MCPMode is the execution mode of an MCP tool, from its annotations:
// read-only tools run in parallel; destructive ones (MCP's default for a
// tool that is not read-only) run alone; the rest one at a time.
func MCPMode(t eventlog.MCPTool) ToolMode {
	switch {
	case t.ReadOnly:
		return ToolParallel
	case t.Destructive == nil || *t.Destructive:
		return ToolExclusive
	default:
		return ToolSequential
	}
}

// validMCPGrant checks an "mcp:" tool entry; known, when not nil, lists
// the worker's tools, where a configured server appears as "mcp:<server>".
func validMCPGrant(entry string, known []string) error {
	g, _ := ParseMCPGrant(entry)
	switch {
	case !ValidMCPServerName(g.Server):
		return fmt.Errorf("MCP tool entry %q: a server name is 1 to %d of [a-zA-Z0-9_-] without \"__\"", entry, MaxMCPServerName)
	case strings.Contains(entry, "/") && g.Tool == "":
		return fmt.Errorf("MCP tool entry %q names no tool after /", entry)
	case known != nil && !slices.Contains(known, MCPGrant{Server: g.Server}.String()):
		return fmt.Errorf("MCP server %q is not configured on this worker", g.Server)
	}
	return nil
}

// grants reports whether the tool entries have grant entry: the entry
// itself, or its whole server.
func grants(tools []string, entry string) bool {
	if slices.Contains(tools, entry) {
		return true
	}
	g, ok := ParseMCPGrant(entry)
	return ok && g.Tool != "" && slices.Contains(tools, MCPGrant{Server: g.Server}.String())
}
