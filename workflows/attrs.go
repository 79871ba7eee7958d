package workflows

import (
	"time"

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
	// WaitingKey and WaitUntilKey say what the agent waits for.
	WaitingKey   = temporal.NewSearchAttributeKeyKeyword(signals.AttrWaiting)
	WaitUntilKey = temporal.NewSearchAttributeKeyTime(signals.AttrWaitUntil)
)

// attrState is what the run last wrote, so it upserts only on change: each
// upsert is a history event.
type attrState struct {
	status  eventlog.Status
	turn    int
	model   string
	waiting string
	until   time.Time
}

func currentAttrs(ctx workflow.Context) attrState {
	sa := workflow.GetTypedSearchAttributes(ctx)
	st, _ := sa.GetKeyword(StatusKey)
	turn, _ := sa.GetInt64(TurnKey)
	model, _ := sa.GetKeyword(ModelKey)
	waiting, _ := sa.GetKeyword(WaitingKey)
	until, _ := sa.GetTime(WaitUntilKey)
	return attrState{status: eventlog.Status(st), turn: int(turn), model: model, waiting: waiting, until: until}
}

// waiting is what the agent waits for, most pressing first: a person's
// approval, an answer, a wait tool's timer; and when its earliest wait ends.
func waiting(s eventlog.State) (string, time.Time) {
	for _, k := range []eventlog.DecisionKind{eventlog.NeedApproval, eventlog.NeedAnswer} {
		for _, p := range s.Pending {
			if p.Kind == k {
				return string(k), time.Time{}
			}
		}
	}
	var until time.Time
	for _, w := range s.Waits {
		if until.IsZero() || w.Until.Before(until) {
			until = w.Until
		}
	}
	if until.IsZero() {
		return "", until
	}
	return "wait", until
}

// syncWaiting writes what the agent waits for when it changed. Runs that
// never wait never write it.
func (r *run) syncWaiting(ctx workflow.Context) {
	if r.cfg.NoSearchAttributes {
		return
	}
	w, until := waiting(r.loop.State())
	if w == r.attrs.waiting && until.Equal(r.attrs.until) {
		return
	}
	ups := map[string]any{WaitingKey.GetName(): w, WaitUntilKey.GetName(): nil}
	if !until.IsZero() {
		ups[WaitUntilKey.GetName()] = until
	}
	if err := upsert(ctx, ups); err != nil {
		r.logger(ctx).Warn("Search attribute upsert failed", "error", err)
		return
	}
	r.attrs.waiting, r.attrs.until = w, until
}

// syncEnded sets TetherStatus to signals.EndedDisposed as a disposed run
// completes, so the Temporal UI's column names the agent's end in the
// word every Tether view uses.
func (r *run) syncEnded(ctx workflow.Context) {
	if r.cfg.NoSearchAttributes {
		return
	}
	ended := eventlog.Status(signals.EndedDisposed)
	if err := upsert(ctx, map[string]any{StatusKey.GetName(): string(ended)}); err != nil {
		r.logger(ctx).Warn("Search attribute upsert failed", "error", err)
		return
	}
	r.attrs.status = ended
}

// syncAttrs writes status and turn when they changed, in one command.
func (r *run) syncAttrs(ctx workflow.Context) {
	if r.cfg.NoSearchAttributes {
		return
	}
	s := r.loop.State()
	ups := map[string]any{}
	if s.Status != r.attrs.status {
		ups[StatusKey.GetName()] = string(s.Status)
	}
	if s.Turn != r.attrs.turn {
		ups[TurnKey.GetName()] = int64(s.Turn)
	}
	model := signals.ModelLabel(s.Selection)
	if model != r.attrs.model {
		ups[ModelKey.GetName()] = model
	}
	if len(ups) == 0 {
		return
	}
	if err := upsert(ctx, ups); err != nil {
		r.logger(ctx).Warn("Search attribute upsert failed", "error", err)
		return
	}
	r.attrs.status, r.attrs.turn, r.attrs.model = s.Status, s.Turn, model
}

// upsert writes search attributes, each value of its key's registered
// type (string for a keyword, int64 for an int, time.Time for a datetime,
// nil to unset), without the SDK's type metadata: the typed upsert writes
// "type":"Keyword" into every value's payload, 13 to 17 bytes an
// attribute, 47 a turn, and the server needs none of it. It checks and
// indexes a value by the type the namespace registered for its name, and
// adds that type back to every payload it serves (history, describe,
// list), so a reader, and a run started from these attributes
// (currentAttrs after Continue-As-New), sees them typed as before.
func upsert(ctx workflow.Context, attrs map[string]any) error {
	//lint:ignore SA1019 the typed call adds the type metadata this call exists to leave out; same command otherwise.
	return workflow.UpsertSearchAttributes(ctx, attrs)
}
