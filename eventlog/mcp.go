package eventlog

import "encoding/json"

// ToolsListed records what the agent's MCP servers offered when the loop
// listed them, at most once a turn (tools/listed). A step's tool set is
// resolved from the listings recorded in the run, so replay never depends
// on a live server. The event is the listing activity's result: its
// journal entry refers to it (ActivityRef) and holds nothing else.
type ToolsListed struct {
	Servers []ServerTools `json:"servers"`
}

// ServerTools is one server's listing.
type ServerTools struct {
	Server string `json:"server"`
	// Digest identifies Tools; the next listing sends it, and a server whose
	// tools did not change answers Unchanged with no tools.
	Digest    string    `json:"digest,omitempty"`
	Unchanged bool      `json:"unchanged,omitempty"`
	Tools     []MCPTool `json:"tools,omitempty"`
	// Error says why the server could not be listed (or which of its tools
	// were left out); the tools recorded before for it stay in use.
	Error string `json:"error,omitempty"`
}

// MCPTool is one tool as an MCP server describes it.
type MCPTool struct {
	// Name is the server's name for the tool; the model sees it qualified
	// by the server (signals.MCPToolName).
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	// The server's hints (MCP tool annotations). Destructive is nil when the
	// server did not say; MCP then means true for a tool that is not
	// read-only.
	ReadOnly    bool  `json:"read_only,omitempty"`
	Destructive *bool `json:"destructive,omitempty"`
	Idempotent  bool  `json:"idempotent,omitempty"`
}

// Listings folds tools/listed events: per server, the last listing that
// held tools. A server that answered Unchanged or failed keeps the one
// before. The zero value is empty and ready.
type Listings map[string]ServerTools

// Apply folds one tools/listed event.
func (l Listings) Apply(e ToolsListed) {
	for _, s := range e.Servers {
		if s.Unchanged || s.Error != "" && len(s.Tools) == 0 {
			continue
		}
		l[s.Server] = s
	}
}

func (ToolsListed) Type() Type { return TypeToolsListed }
func (ToolsListed) isEvent()   {}
