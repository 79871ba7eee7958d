package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// writeJournal writes the log tail the agent goes idle with: as a journal
// marker, then the search attributes (idle). A plain idle tail
// (signals.IdleTail: the last model call answered, the turn completed)
// gets no marker: the status upsert to idle in the same workflow task
// stands for it, and projection derives its events. One event and ~300
// bytes less history every such turn. A run that writes no search
// attributes writes nothing at all for it: the workflow task that took the
// answer (one asking for no tool, with nothing journaled since the call's
// input) and carried no journal stands for it.
func (r *run) writeJournal(ctx workflow.Context, j signals.Journal) {
	if !r.plainIdleTail(ctx, j) {
		r.journal(ctx, j)
		r.syncAttrs(ctx)
		return
	}
	if r.cfg.NoSearchAttributes {
		return // bareTail
	}
	r.syncAttrs(ctx)
	if r.attrs.status != eventlog.StatusIdle { // the upsert failed: history needs the marker
		r.journal(ctx, j)
	}
}

// plainIdleTail reports whether j is exactly the plain idle tail and this
// task upserts the status to idle, or the run writes no search attributes:
// what projection keys on.
func (r *run) plainIdleTail(ctx workflow.Context, j signals.Journal) bool {
	if len(j.Entries) == 0 || r.loop.State().Status != eventlog.StatusIdle {
		return false
	}
	if !r.cfg.NoSearchAttributes && r.attrs.status == eventlog.StatusIdle {
		return false
	}
	kind, id, err := j.Entries[0].Ref.Split()
	if err != nil || kind != eventlog.RefActivity {
		return false
	}
	want, err := signals.IdleTail(j.From, workflow.Now(ctx), id)
	return err == nil && want.Equal(j)
}
