package mcp

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/eventlog"
)

// Bounds of a listing's encoded size. The listing is the activity's
// result, one Temporal payload (2 MiB at most, and a failure to complete
// past it is retried until the listing's deadline), and it reaches every
// prompt of the run. A server's tools are offered in its order while they
// fit in MaxServerListingBytes, the rest named in its Error like tools
// past signals.MaxMCPToolsPerServer; a listing of many servers that is
// still over MaxListingBytes fails at once with ErrListingTooLarge.
const (
	MaxServerListingBytes = 256 << 10
	MaxListingBytes       = 1 << 20
	// maxListingError bounds a server's Error, which names each tool left
	// out: a server may list any number of them.
	maxListingError = 2 << 10
)

// ErrListingTooLarge is the ApplicationError type of a listing whose
// encoded size is over its bound: not retryable, since the same servers
// list the same tools again.
const ErrListingTooLarge = "tether.MCPListingTooLarge"

// toolBytes is what t adds to its server's encoded tools, comma included.
func toolBytes(t eventlog.MCPTool) int {
	b, _ := json.Marshal(t) // cannot fail: the schema was marshalled from JSON
	return len(b) + 1
}

// byteNote says which tools a server's byte bound left out.
func byteNote(kept, offered, total, limit int) string {
	return fmt.Sprintf("only the first %d of these %d tools are offered: the %d take %s, over the %d bytes a server's listing may hold",
		kept, offered, offered, exactSize(total), limit)
}

// exactSize says n bytes the way a person would, and exactly.
func exactSize(n int) string {
	if n < 1<<10 {
		return size(n)
	}
	return fmt.Sprintf("%s (%d bytes)", size(n), n)
}

// tooLarge fails out when its encoded size is over limit, naming its
// servers, the largest first, with their tools and sizes.
func tooLarge(out eventlog.ToolsListed, limit int) error {
	b, _ := json.Marshal(out) // cannot fail, as toolBytes
	if len(b) <= limit {
		return nil
	}
	type entry struct {
		server      string
		tools, size int
	}
	entries := make([]entry, 0, len(out.Servers))
	for _, st := range out.Servers {
		sb, _ := json.Marshal(st)
		entries = append(entries, entry{st.Server, len(st.Tools), len(sb)})
	}
	slices.SortStableFunc(entries, func(a, b entry) int { return cmp.Compare(b.size, a.size) })
	parts := make([]string, 0, len(entries))
	for _, e := range entries {
		parts = append(parts, fmt.Sprintf("MCP server %q lists %d tools in %s", e.server, e.tools, size(e.size)))
	}
	msg := fmt.Sprintf("the MCP listing of %d servers takes %s, over the %d bytes a listing may hold; give the agent fewer of them: %s",
		len(out.Servers), exactSize(len(b)), limit, strings.Join(parts, ", "))
	return temporal.NewNonRetryableApplicationError(truncate(msg, maxListingError), ErrListingTooLarge, nil)
}
