package console

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tetherdev/tether/console/transcript"
)

// blockFrame renders b for a page. Call with f.mu held.
func (f *feed) blockFrame(b *transcript.Block) frame {
	html, err := f.s.partial("block", b)
	if err != nil {
		f.s.o.Logger.Error("Console block failed to render", "agent_id", f.h.ID, "block", b.ID, "error", err)
	}
	data, _ := json.Marshal(struct {
		ID   string `json:"id"`
		HTML string `json:"html"`
	}{b.ID, html})
	return frame{Event: "block", ID: b.Last, Data: data}
}

// statusJSON queries the status and renders the status panel with tr's
// totals and the agent's tree: the tree is read again when the log's
// children changed or it is treeEvery old. Call from run's goroutine only:
// it owns the tree.
func (f *feed) statusJSON(tr *transcript.Transcript) []byte {
	ctx, cancel := context.WithTimeout(f.ctx, f.s.o.QueryTimeout)
	defer cancel()
	v := statusView{ID: f.h.ID, Live: true, Forms: true}
	if st, err := f.h.Status(ctx); err != nil {
		v.Err = err.Error()
		v.Starting = tr != nil && tr.Next == 0
	} else {
		v.Status = &st
	}
	v.Progress = f.s.progress(ctx, f.h)
	f.turn.running, f.turn.at = v.Status != nil && v.Status.InTurn, time.Now()
	if tr != nil {
		f.mu.Lock()
		v.Total, v.Selection, v.Parent = tr.Total, tr.Selection, f.parent
		kids := make([]*transcript.Child, len(tr.Children))
		for i, c := range tr.Children {
			cp := *c
			kids[i] = &cp
		}
		f.mu.Unlock()
		v.Tree = f.readTree(ctx, kids)
	}
	html, err := f.s.partial("status", v)
	if err != nil {
		f.s.o.Logger.Error("Console status failed to render", "agent_id", f.h.ID, "error", err)
	}
	data, _ := json.Marshal(struct {
		HTML    string `json:"html"`
		Running bool   `json:"running"`
	}{html, v.Status != nil && v.Status.InTurn})
	return data
}

// readTree returns the agent's tree, read again when the log's children
// changed or the last reading is treeEvery old.
func (f *feed) readTree(ctx context.Context, kids []*transcript.Child) *treeNode {
	var kb strings.Builder
	for _, c := range kids {
		fmt.Fprintf(&kb, "%v;", *c)
	}
	key := kb.String()
	if f.tree.at.IsZero() || key != f.tree.key || time.Since(f.tree.at) >= treeEvery {
		f.tree.root, f.tree.key, f.tree.at = f.s.tree(ctx, f.h.ID, kids), key, time.Now()
	}
	return f.tree.root
}

// progressDue reports whether a turn ran when the status was last read,
// treeEvery ago: a running tool call's progress moves without the log.
func (f *feed) progressDue() bool {
	return f.turn.running && time.Since(f.turn.at) >= treeEvery
}

// treeDue reports whether the tree has agents that may still change and
// its reading is treeEvery old: their status moves without the log.
func (f *feed) treeDue() bool {
	return f.tree.root.open() && time.Since(f.tree.at) >= treeEvery
}

// refreshStatus renders the status panel again and sends it if it
// changed.
func (f *feed) refreshStatus() {
	f.mu.Lock()
	tr := f.tr
	f.mu.Unlock()
	status := f.statusJSON(tr)
	f.mu.Lock()
	defer f.mu.Unlock()
	if bytes.Equal(status, f.status) {
		return
	}
	f.status = status
	f.broadcast(frame{Event: "status", ID: f.tr.Next - 1, Data: status})
}

// calling reports whether step turn.step of tr still waits for its model.
func calling(tr *transcript.Transcript, turn, step int) bool {
	b := tr.Block(turnID(turn))
	if b == nil {
		return true // not in the log yet
	}
	for _, e := range b.Entries {
		if e.Step != nil && e.Step.Step == step {
			return e.Step.Calling
		}
	}
	return true
}
