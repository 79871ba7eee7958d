package agent

import (
	"go.temporal.io/sdk/temporal"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// startAttributes are the search attributes a new agent starts with: idle,
// turn 0, its model and parent (none WithoutSearchAttributes). The
// workflow keeps them current.
func (r *Client) startAttributes(opts signals.AgentOptions) temporal.SearchAttributes {
	if r.noAttrs {
		return temporal.SearchAttributes{}
	}
	ups := []temporal.SearchAttributeUpdate{
		temporal.NewSearchAttributeKeyKeyword(signals.AttrStatus).ValueSet(string(eventlog.StatusIdle)),
		temporal.NewSearchAttributeKeyInt64(signals.AttrTurn).ValueSet(0),
		temporal.NewSearchAttributeKeyKeyword(signals.AttrModel).ValueSet(modelName(opts)),
	}
	if opts.Parent != "" {
		ups = append(ups, temporal.NewSearchAttributeKeyKeyword(signals.AttrParent).ValueSet(opts.Parent))
	}
	return temporal.NewSearchAttributes(ups...)
}

// modelName is the provider/model label of an agent's options.
func modelName(opts signals.AgentOptions) string {
	return signals.ModelLabel(signals.Selection{Provider: opts.Provider, Model: opts.Model})
}
