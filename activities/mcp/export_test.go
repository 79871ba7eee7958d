package mcp

import sdk "github.com/modelcontextprotocol/go-sdk/mcp"

// Transport is the transport the Manager opens server's sessions with.
func (m *Manager) Transport(server string) sdk.Transport { return m.transport(m.servers[server]) }
