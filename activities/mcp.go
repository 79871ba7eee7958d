package activities

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"go.temporal.io/sdk/activity"
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

// MaxMCPFaults bounds the faulted attempts of one MCP call. A server that
// breaks on every call of a tool (it crashes on these arguments) would
// otherwise be retried as a fault until the call's deadline, an hour,
// with the model and the agent's status showing nothing but a running
// call. At the bound the model gets an error result that says so.
const MaxMCPFaults = 3

// mcpFault marks an MCPCaller's error: a fault of the server, not the
// call's own failure. n counts the call's faulted attempts, this one
// included; it is zero in a local activity, whose retry policy bounds
// its attempts.
type mcpFault struct {
	err error
	n   int32
}

func (f mcpFault) Error() string {
	if f.n == 0 {
		return f.err.Error()
	}
	return fmt.Sprintf("%v (fault %d of %d of this call: retried; at %d the model is told the call failed)",
		f.err, f.n, MaxMCPFaults, MaxMCPFaults)
}

func (f mcpFault) Unwrap() error { return f.err }

// dispatch runs the call on the MCP server in.MCP names, or the worker's
// own tool.
// A worker's tool that fails with tools.Unavailable is faulted the same
// way.
func (t *Tool) dispatch(ctx context.Context, in signals.ToolInput, call tools.Call) (tools.Result, error) {
	var res tools.Result
	var err error
	switch {
	case in.MCP == nil:
		res, err = t.Runner.Execute(ctx, call)
		if _, ok := errors.AsType[*tools.UnavailableError](err); !ok {
			return res, err
		}
	case t.MCP == nil:
		return tools.Result{Content: fmt.Sprintf("MCP server %q is not configured on this worker", in.MCP.Server), IsError: true}, nil
	default:
		res, err = t.MCP.CallMCP(ctx, *in.MCP, call)
		if err == nil {
			return res, nil
		}
	}
	n := faultedAttempts(ctx)
	if n >= MaxMCPFaults && ctx.Err() == nil {
		if in.MCP == nil {
			return tools.Result{Content: toolFaultsResult(call.Name, n, err), IsError: true}, nil
		}
		return tools.Result{Content: faultsResult(*in.MCP, n, err), IsError: true}, nil
	}
	return res, mcpFault{err, n}
}

// toolFaultsResult is what the model reads of a worker's tool call that
// failed n times in a row for a fault of what it depends on.
func toolFaultsResult(tool string, n int32, last error) string {
	return tools.Truncate(fmt.Sprintf("tool %q could not reach what it depends on %d times in a row, so the call was given up: "+
		"calling it again later may work. The last time: %v", tool, n, last), MaxErrorBytes)
}

// faultedAttempts counts the attempts of the call that ended in a fault,
// this one included: every attempt but those that failed on the call's
// own account. An attempt lost with its worker counts: it did not finish
// either. Zero in a local activity.
func faultedAttempts(ctx context.Context) int32 {
	info := activity.GetInfo(ctx)
	if info.IsLocalActivity {
		return 0
	}
	return max(info.Attempt-priorFailures(ctx), 1)
}

// modelFacing is the optional capability of an MCPCaller's error to say
// itself as the model may read it, without what is for the operator only
// (mcp.Fault).
type modelFacing interface{ ModelText() string }

// faultsResult is what the model reads of a call its server broke off
// n times.
func faultsResult(tool signals.MCPGrant, n int32, last error) string {
	text := last.Error()
	var mf modelFacing
	if errors.As(last, &mf) {
		text = mf.ModelText()
	}
	return tools.Truncate(fmt.Sprintf("MCP server %q crashed or lost its connection on tool %q %d times in a row, "+
		"each time before it answered, so the call was given up: it may have run in part, and calling it "+
		"again the same way will likely fail the same way. The last time: %s", tool.Server, tool.Tool, n, text), MaxErrorBytes)
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
