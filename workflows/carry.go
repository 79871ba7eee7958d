package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

// carry executes a Ready's commands, history carrying its Journal: the one
// place that decides how. loop.Carry puts the journal in the first command
// whose payload history keeps (a model, summary or tool activity's input,
// the Continue-As-New seed, the workflow result). A run continuing as new
// adds what the inputs it applies while it settles journal to the seed.
// Any other journal is the agent going idle: writeJournal writes it after
// the commands, as a journal marker or, for the plain idle tail, not at
// all.
func (r *run) carry(ctx workflow.Context, rd loop.Ready) *end {
	cmds, left := loop.Carry(rd)
	if r.seed != nil && !left.IsZero() {
		r.seed.add(left)
		left = signals.Journal{}
	}
	for _, cmd := range cmds {
		if end := r.exec(ctx, cmd); end != nil {
			return end
		}
	}
	if !left.IsZero() {
		r.writeJournal(ctx, left)
		workflow.SetCurrentDetails(ctx, r.details("idle"))
	}
	return nil
}

// seedJournal is the journal a Continue-As-New seed carries: its command's,
// then each later Ready's, which the loop keeps consecutive.
type seedJournal struct {
	j   signals.Journal
	err error
}

func (s *seedJournal) add(j signals.Journal) {
	if s.err != nil {
		return
	}
	s.j, s.err = appendJournal(s.j, j)
}

// appendJournal is a's events then b's, as signals.NewJournal packs them
// all: b's times are taken relative to a's start.
func appendJournal(a, b signals.Journal) (signals.Journal, error) {
	switch {
	case a.IsZero():
		return b, nil
	case b.IsZero():
		return a, nil
	case b.From != a.From+int64(len(a.Entries)):
		return a, fmt.Errorf("seed journal: seq %d where %d belongs", b.From, a.From+int64(len(a.Entries)))
	}
	out := signals.Journal{From: a.From, At: a.At, Entries: make([]signals.JournalEntry, 0, len(a.Entries)+len(b.Entries))}
	out.Entries = append(out.Entries, a.Entries...)
	for _, e := range b.Entries {
		e.Delta += b.At - a.At
		out.Entries = append(out.Entries, e)
	}
	return out, nil
}

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

// journal writes j as a side-effect marker, so history alone holds the
// whole session log.
func (r *run) journal(ctx workflow.Context, j signals.Journal) {
	if j.IsZero() {
		return
	}
	workflow.SideEffect(ctx, func(workflow.Context) any { return signals.JournalMarker{Journal: j} })
}
