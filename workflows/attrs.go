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
	s := r.loop.State()
	var ups []temporal.SearchAttributeUpdate
	if s.Status != r.attrs.status {
		ups = append(ups, StatusKey.ValueSet(string(s.Status)))
	}
	if s.Turn != r.attrs.turn {
		ups = append(ups, TurnKey.ValueSet(int64(s.Turn)))
	}
	model := signals.ModelLabel(s.Selection)
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
