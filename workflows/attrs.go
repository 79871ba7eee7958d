package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Typed search attribute keys operators filter by.
var (
	StatusKey = temporal.NewSearchAttributeKeyKeyword(signals.AttrStatus)
	ModelKey  = temporal.NewSearchAttributeKeyKeyword(signals.AttrModel)
	ParentKey = temporal.NewSearchAttributeKeyKeyword(signals.AttrParent)
	TurnKey   = temporal.NewSearchAttributeKeyInt64(signals.AttrTurn)
)

// attrState is what the run last wrote, so it upserts only on change: each
// upsert is a history event.
type attrState struct {
	status eventlog.Status
	turn   int
	model  string
}

func currentAttrs(ctx workflow.Context) attrState {
	sa := workflow.GetTypedSearchAttributes(ctx)
	st, _ := sa.GetKeyword(StatusKey)
	turn, _ := sa.GetInt64(TurnKey)
	model, _ := sa.GetKeyword(ModelKey)
	return attrState{status: eventlog.Status(st), turn: int(turn), model: model}
}

// syncAttrs writes status and turn when they changed, in one command.
func (r *run) syncAttrs(ctx workflow.Context) {
	if r.cfg.NoSearchAttributes {
		return
	}
	s := r.core.State()
	var ups []temporal.SearchAttributeUpdate
	if s.Status != r.attrs.status {
		ups = append(ups, StatusKey.ValueSet(string(s.Status)))
	}
	if s.Turn != r.attrs.turn {
		ups = append(ups, TurnKey.ValueSet(int64(s.Turn)))
	}
	model := Label(r.core.selection)
	if model != r.attrs.model {
		ups = append(ups, ModelKey.ValueSet(model))
	}
	if len(ups) == 0 {
		return
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, ups...); err != nil {
		workflow.GetLogger(ctx).Warn("Search attribute upsert failed", "error", err)
		return
	}
	r.attrs = attrState{status: s.Status, turn: s.Turn, model: model}
}

// StartAttributes are the search attributes a client sets when it starts an
// agent: idle, turn 0, its model and parent.
func StartAttributes(opts signals.AgentOptions) temporal.SearchAttributes {
	ups := []temporal.SearchAttributeUpdate{
		StatusKey.ValueSet(string(eventlog.StatusIdle)),
		TurnKey.ValueSet(0),
		ModelKey.ValueSet(ModelName(opts)),
	}
	if opts.Parent != "" {
		ups = append(ups, ParentKey.ValueSet(opts.Parent))
	}
	return temporal.NewSearchAttributes(ups...)
}

// ModelName is the provider/model label of an agent's options.
func ModelName(opts signals.AgentOptions) string {
	return Label(signals.Selection{Provider: opts.Provider, Model: opts.Model})
}

// Label is the provider/model label of a selection, as TetherModel shows it.
func Label(s signals.Selection) string {
	p, m := s.Provider, s.Model
	if p == "" {
		p = "default"
	}
	if m == "" {
		m = "default"
	}
	return p + "/" + m
}
