package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/signals"
)

// compact shrinks the model context: it prunes old tool results first and,
// when that is not enough (or force), has the model summarise all but the
// recent messages. Every part is a durable event or an activity, so a crash
// at any point resumes or replays it. It reports whether the context
// actually shrank.
func (r *run) compact(ctx workflow.Context, force bool) (bool, error) {
	p := r.core.opts.Compaction.Policy()
	before := r.core.ContextTokens()
	if ids := r.core.PlanPrune(p.PruneOver, p.KeepRecent); len(ids) > 0 {
		r.core.Pruned(workflow.Now(ctx), ids)
	}
	target := int(float64(p.Window) * p.Threshold / 2)
	if force || p.Window == 0 || r.core.ContextTokens() > target {
		if err := r.summarise(ctx, p.KeepRecent); err != nil {
			return false, err
		}
	}
	return r.core.ContextTokens() < before, r.core.Err()
}

// summarise has the model activity summarise the context but its recent
// messages, and records the summary.
func (r *run) summarise(ctx workflow.Context, keepRecent int) error {
	keep := r.core.SummaryKeep(keepRecent)
	if keep < 0 {
		return nil // nothing old enough to summarise
	}
	s := r.core.State()
	id := fmt.Sprintf("compact-%d", s.Len) // the log position is unique across the chain
	sel := r.core.selection
	in := signals.ModelInput{
		Ref:     signals.LogRef{Upto: s.Len},
		Call:    signals.CallConfig{Provider: sel.Provider, Model: sel.Model, Turn: s.Turn, Step: s.Step, Summarize: &signals.Summarize{Keep: keep}},
		Journal: r.core.TakeJournal(),
	}
	actx := workflow.WithActivityOptions(ctx, r.cfg.summaryOptions(id, fmt.Sprintf("compact context turn %d (keep %d)", s.Turn, keep)))
	var out signals.ModelOutput
	if err := workflow.ExecuteActivity(actx, signals.ModelActivity, in).Get(actx, &out); err != nil {
		return fmt.Errorf("summarise context: %w", err)
	}
	r.core.Compacted(workflow.Now(ctx), out.Text, keep, id)
	return nil
}
