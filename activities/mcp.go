package activities

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/activities/tools"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// MCPCaller runs calls of MCP servers' tools (ToolInput.MCP); the worker's
// is mcp.Caller. Like a ToolRunner it returns what the model should see as
// a Result, IsError for failures; a returned error is a fault of the
// server or its connection, and the attempt may be retried. Safe for
// concurrent use.
type MCPCaller interface {
	CallMCP(ctx context.Context, tool signals.MCPGrant, call tools.Call) (tools.Result, error)
}

// ErrMCPUnavailable is the ApplicationError type of a tool call whose MCP
// server could not answer it (its process exited, its connection broke):
// a fault, retried without counting against the call's attempts, like a
// worker that died. The model never sees it, unless the faults outlast
// the call's deadline.
const ErrMCPUnavailable = "tether.MCPUnavailable"

// mcpFault marks an MCPCaller's error: a fault of the server, not the
// call's own failure.
type mcpFault struct{ err error }

func (f mcpFault) Error() string { return f.err.Error() }
func (f mcpFault) Unwrap() error { return f.err }

// dispatch runs the call on the MCP server in.MCP names, or the worker's
// own tool.
func (t *Tool) dispatch(ctx context.Context, in signals.ToolInput, call tools.Call) (tools.Result, error) {
	switch {
	case in.MCP == nil:
		return t.Runner.Execute(ctx, call)
	case t.MCP == nil:
		return tools.Result{Content: fmt.Sprintf("MCP server %q is not configured on this worker", in.MCP.Server), IsError: true}, nil
	}
	res, err := t.MCP.CallMCP(ctx, *in.MCP, call)
	if err != nil {
		return res, mcpFault{err}
	}
	return res, nil
}

// MCPListings is the optional capability of a ConversationReader, found by
// type assertion, that returns the MCP listings a run recorded up to a log
// reference (eventlog.Conversation.Tools). The caller owns the result.
type MCPListings interface {
	Listings(ctx context.Context, ref signals.LogRef) (eventlog.Listings, error)
}

// specs describes the call's tools to the model: the worker's own, and
// the MCP tools the run's recorded listings hold under their model-facing
// names (signals.MCPToolName). The listings are read only when a name is
// not one of the worker's tools.
func (m *Model) specs(ctx context.Context, in signals.ModelInput) ([]llm.ToolSpec, error) {
	specs, err := m.Tools.Specs(in.Call.Tools)
	lr, ok := m.Log.(MCPListings)
	if err == nil || !ok {
		return specs, invalidTools(err)
	}
	listings, lerr := lr.Listings(ctx, ownRef(ctx, in.Ref))
	if lerr != nil {
		return nil, temporal.NewApplicationError(lerr.Error(), ErrLogUnavailable)
	}
	mcpSpecs := mcpToolSpecs(listings)
	specs = make([]llm.ToolSpec, 0, len(in.Call.Tools))
	for i, name := range in.Call.Tools {
		own, err := m.Tools.Specs([]string{name})
		spec, listed := mcpSpecs[name]
		switch {
		case slices.Contains(in.Call.Tools[:i], name):
			return nil, invalidTools(fmt.Errorf("tool %q listed twice", name))
		case err == nil:
			specs = append(specs, own...)
		case listed:
			specs = append(specs, spec)
		default:
			return nil, invalidTools(err)
		}
	}
	return specs, nil
}

// mcpToolSpecs are the listed tools by model-facing name; where two
// tools map to one name, the first server in name order wins.
func mcpToolSpecs(listings eventlog.Listings) map[string]llm.ToolSpec {
	out := map[string]llm.ToolSpec{}
	for _, server := range slices.Sorted(maps.Keys(listings)) {
		for _, t := range listings[server].Tools {
			name := signals.MCPToolName(server, t.Name)
			if _, taken := out[name]; !taken {
				out[name] = llm.ToolSpec{Name: name, Description: t.Description, Parameters: t.InputSchema}
			}
		}
	}
	return out
}

// invalidTools is the non-retryable failure of a call naming tools the
// worker cannot describe; nil for nil.
func invalidTools(err error) error {
	if err == nil {
		return nil
	}
	return failure(eventlog.Failure{Kind: eventlog.FailureInvalidRequest, Message: err.Error()})
}
