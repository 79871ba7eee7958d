package loop

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Child agents: the agent workflow started as a child workflow that
// outlives its parent's runs (it is abandoned, never terminated, when a run
// closes). A child reports each settled turn by signal; its spending rolls
// up into the parent's usage, and its budget is reserved from the parent's
// until it ends, so a tree never spends more than its root's budget.

// startSpawn starts the child a spawn_agent call asks for.
func (o *orchestrator) startSpawn(now time.Time, tc *toolCall) {
	c := tc.call
	var a signals.SpawnArgs
	if err := json.Unmarshal(c.Arguments, &a); err != nil {
		o.badArgs(now, tc, "invalid arguments: "+err.Error())
		return
	}
	if a.Mode == "" {
		a.Mode = eventlog.ChildWait
	}
	id := signals.ChildAgentID(o.cfg.AgentID, o.state.Len)
	cmd, budget, err := o.spawns().start(id, a)
	if err != nil {
		o.badArgs(now, tc, err.Error())
		return
	}
	o.host.recordCall(now, tc)
	o.host.record(now, "", eventlog.ChildStarted{ChildID: id, CallID: c.ID, Mode: a.Mode, List: a.List, Budget: budget})
	tc.spawn(id, a.Mode == eventlog.ChildDetach)
	o.host.emit(cmd)
}

// spawnDetached starts a detached child for a client or a hook.
func (o *orchestrator) spawnDetached(now time.Time, sp signals.Spawn) error {
	if o.state.Disposing {
		return signals.ErrDisposed
	}
	if err := signals.ValidateID(sp.ID); err != nil {
		return err
	}
	if o.recent.seen[sp.ID] {
		return fmt.Errorf("%w: %s", signals.ErrDuplicateID, sp.ID)
	}
	sp.Mode = eventlog.ChildDetach
	id := signals.ChildAgentID(o.cfg.AgentID, o.state.Len)
	cmd, budget, err := o.spawns().start(id, sp.SpawnArgs)
	if err != nil {
		return err
	}
	o.recent.add(sp.ID)
	o.host.record(now, "", eventlog.ChildStarted{ChildID: id, Mode: sp.Mode, List: sp.List, Budget: budget})
	o.host.emit(cmd)
	return nil
}

// childStarted applies StartChild's outcome: a detached spawn answers now;
// a child that did not start ends, and a call waiting on it hears why.
func (o *orchestrator) childStarted(now time.Time, in ChildStart) {
	c := o.spawnCall(in.ChildID)
	switch {
	case in.Err != nil:
		o.childEnded(now, in.ChildID, "not started: "+in.Err.Error(), eventlog.Usage{})
	case c != nil && c.detach:
		c.answer(c.ok(fmt.Sprintf(
			"child agent %s started; each turn it settles will reach you as a message from it", in.ChildID)), "")
		o.host.runTools(now)
	}
}

// spawnCall is the open spawn_agent call in flight for a child, if any.
func (o *orchestrator) spawnCall(child string) *toolCall {
	t := o.host.calls()
	if t == nil {
		return nil
	}
	i := slices.IndexFunc(t.calls, func(c toolCall) bool { return c.child == child })
	if i < 0 || t.calls[i].stage != running {
		return nil
	}
	return &t.calls[i]
}

// childReported records a child's report. A call waiting for the child
// gets its answer (and the child, having answered, is disposed); a
// detached child's answer arrives in the inbox, from the child.
func (o *orchestrator) childReported(now time.Time, r signals.ChildReport) {
	ci := slices.IndexFunc(o.state.Children, func(c eventlog.Child) bool { return c.ID == r.Child })
	if ci < 0 {
		return // a child that already ended, or a report for another agent
	}
	if r.Ended != "" {
		o.childEnded(now, r.Child, r.Ended, r.Spent)
		return
	}
	if r.Turn <= 0 || r.ID != signals.ChildReportID(r.Child, r.Turn) || duplicateID(o.state, o.recent, r.ID) {
		return // not a report the child sends (a raw signal), or one taken already
	}
	o.recent.add(r.ID)
	child := o.state.Children[ci]
	ref := eventlog.Ref("")
	if r.Text != "" {
		ref = eventlog.MessageRef(r.ID)
	}
	o.host.record(now, ref, eventlog.ChildSettled{ChildID: r.Child, Turn: r.Turn, Reason: r.Reason, Error: r.Error, Text: r.Text,
		Usage: spentSince(child.Spent, r.Spent)})
	answered := r.Reason == eventlog.EndCompleted || r.Reason == eventlog.EndConcluded
	if child.Mode == eventlog.ChildWait {
		if c := o.spawnCall(r.Child); c != nil {
			if answered {
				c.answer(c.ok(r.Text), ref)
			} else {
				c.answer(c.made(eventlog.ToolFailed, childTrouble(r)), "")
			}
			o.host.runTools(now)
		}
		if child.Settled == 0 { // it has answered the call (or the call was canceled): done with it
			o.host.emit(SignalChild{ChildID: r.Child, Dispose: &signals.Dispose{Cause: "answered its parent"}})
		}
		return
	}
	content, cref := r.Text, ref
	if !answered || r.Text == "" {
		content, cref = childTrouble(r), ""
	}
	o.host.record(now, cref, eventlog.InboxInserted{MessageID: r.ID, List: firstList(child.List), Content: content, Wake: true,
		From: &eventlog.Initiator{Kind: eventlog.ByChild, ID: r.Child}})
	o.wakeWaits()
}

func childTrouble(r signals.ChildReport) string {
	s := fmt.Sprintf("child agent %s: turn %d ended %s", r.Child, r.Turn, r.Reason)
	if r.Error != "" {
		s += ": " + r.Error
	}
	if r.Reason == eventlog.EndCompleted || r.Reason == eventlog.EndConcluded {
		s += " without an answer"
	}
	return s
}

func firstList(l eventlog.List) eventlog.List {
	if l == "" {
		return eventlog.NextTurn
	}
	return l
}

// spentSince is the usage a report adds: the child's total less what its
// earlier reports counted (never negative).
func spentSince(before, now eventlog.Usage) eventlog.Usage {
	return eventlog.Usage{InputTokens: max(0, now.InputTokens-before.InputTokens),
		OutputTokens: max(0, now.OutputTokens-before.OutputTokens), CachedTokens: max(0, now.CachedTokens-before.CachedTokens),
		CacheWriteTokens: max(0, now.CacheWriteTokens-before.CacheWriteTokens)}
}

// childEnded records that a child's workflow closed: nothing waits on it
// any more, and a call that did hears that it ended unanswered. spent is
// everything the child says it spent (zero when unknown); under rules 3
// the end counts what the child's reports did not, so a report of its
// last turn that arrives after its end (signals from one workflow are not
// delivered in order) loses no tokens: that report is then not recorded,
// since the end counted it.
func (o *orchestrator) childEnded(now time.Time, id, status string, spent eventlog.Usage) {
	ci := slices.IndexFunc(o.state.Children, func(c eventlog.Child) bool { return c.ID == id })
	if ci < 0 {
		return
	}
	late := spentSince(o.state.Children[ci].Spent, spent)
	o.host.record(now, "", eventlog.ChildEnded{ChildID: id, Status: status, Usage: late})
	if c := o.spawnCall(id); c != nil {
		c.settle(eventlog.ToolFailed, fmt.Sprintf("child agent %s ended (%s) before answering", id, status))
		o.host.runTools(now)
	}
}

// disposeChildren disposes every child: the agent ends, and its tree with
// it.
func (o *orchestrator) disposeChildren() {
	for _, c := range o.state.Children {
		o.host.emit(SignalChild{ChildID: c.ID, Dispose: &signals.Dispose{Cause: "parent " + o.cfg.AgentID + " disposed"}})
	}
}

// parentGone: this child's parent no longer takes its reports. It finishes
// its turn and stops.
func (o *orchestrator) parentGone(now time.Time) {
	if !o.state.Disposing {
		o.host.record(now, "", eventlog.AgentDisposing{Cause: "parent agent " + o.cfg.Parent.ID + " is gone"})
	}
}
