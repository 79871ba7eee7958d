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
func (l *Loop) startSpawn(now time.Time, tc *toolCall) {
	c := tc.call
	var a signals.SpawnArgs
	if err := json.Unmarshal(c.Arguments, &a); err != nil {
		l.badArgs(now, tc, "invalid arguments: "+err.Error())
		return
	}
	if a.Mode == "" {
		a.Mode = eventlog.ChildWait
	}
	id := signals.ChildAgentID(l.cfg.AgentID, l.state.Len)
	cmd, budget, err := l.childStart(id, a)
	if err != nil {
		l.badArgs(now, tc, err.Error())
		return
	}
	l.recordCall(now, tc)
	l.record(now, "", eventlog.ChildStarted{ChildID: id, CallID: c.ID, Mode: a.Mode, List: a.List, Budget: budget})
	tc.spawn(id, a.Mode == eventlog.ChildDetach)
	l.emit(cmd)
}

// spawnDetached starts a detached child for a client or a hook.
func (l *Loop) spawnDetached(now time.Time, sp signals.Spawn) error {
	if l.state.Disposing {
		return signals.ErrDisposed
	}
	if err := signals.ValidateID(sp.ID); err != nil {
		return err
	}
	if l.recent.seen[sp.ID] {
		return fmt.Errorf("%w: %s", signals.ErrDuplicateID, sp.ID)
	}
	sp.Mode = eventlog.ChildDetach
	id := signals.ChildAgentID(l.cfg.AgentID, l.state.Len)
	cmd, budget, err := l.childStart(id, sp.SpawnArgs)
	if err != nil {
		return err
	}
	l.recent.add(sp.ID)
	l.record(now, "", eventlog.ChildStarted{ChildID: id, Mode: sp.Mode, List: sp.List, Budget: budget})
	l.emit(cmd)
	return nil
}

// childStart checks a spawn and builds the child's start: its options
// (never more tools than this agent's), its share of the budget, its first
// message from this agent.
func (l *Loop) childStart(id string, a signals.SpawnArgs) (StartChild, eventlog.ChildBudget, error) {
	o := l.cfg.Options
	if err := signals.ValidateSpawnArgs(a, o.Tools); err != nil {
		return StartChild{}, eventlog.ChildBudget{}, err
	}
	depth := 1
	if l.cfg.Parent != nil {
		depth = l.cfg.Parent.Depth + 1
	}
	if depth > signals.MaxChildDepth {
		return StartChild{}, eventlog.ChildBudget{}, fmt.Errorf("%w: a tree of agents is at most %d deep", signals.ErrInvalidSpawn, signals.MaxChildDepth)
	}
	child, queue, err := l.childOptions(a, depth)
	if err != nil {
		return StartChild{}, eventlog.ChildBudget{}, err
	}
	budget, err := l.childBudget(a.Budget)
	if err != nil {
		return StartChild{}, eventlog.ChildBudget{}, err
	}
	if budget != (eventlog.ChildBudget{}) {
		child.Budget = &signals.Budget{MaxTokens: budget.MaxTokens, MaxCost: budget.MaxCost, Prices: o.Budget.Prices}
	}
	return StartChild{
		ChildID: id, TaskQueue: queue,
		Summary: fmt.Sprintf("agent %s, child of %s", signals.ModelLabel(signals.Selection{Provider: child.Provider, Model: child.Model}), l.cfg.AgentID),
		Input: signals.AgentInput{Options: child, First: &signals.Message{ID: "task", Content: a.Task},
			Parent: &signals.ParentLink{ID: l.cfg.AgentID, Depth: depth}},
	}, budget, nil
}

// childOptions are this agent's options, shaped by the profile and the
// spawn's arguments, with the tools cut to what this agent may use.
func (l *Loop) childOptions(a signals.SpawnArgs, depth int) (signals.AgentOptions, string, error) {
	o := l.cfg.Options
	sel := l.state.Selection
	child := signals.AgentOptions{Provider: sel.Provider, Model: sel.Model, Effort: sel.Effort, MaxTokens: o.MaxTokens,
		MaxSteps: o.MaxSteps, Hooks: o.Hooks, HookConfig: o.HookConfig, Retry: o.Retry, MaxParallelTools: o.MaxParallelTools,
		Compaction: o.Compaction, Approval: o.Approval, Wait: o.Wait, Parent: l.cfg.AgentID, Tools: o.Tools}
	queue := ""
	if a.Profile != "" {
		p, ok := l.cfg.Profiles[a.Profile]
		if !ok {
			return child, "", fmt.Errorf("%w: no profile %q on this worker", signals.ErrInvalidSpawn, a.Profile)
		}
		queue = p.TaskQueue
		child.SystemPrompt, child.Prompt = p.Options.SystemPrompt, p.Options.Prompt
		if p.Options.Provider != "" || p.Options.Model != "" {
			child.Provider, child.Model, child.Effort = p.Options.Provider, p.Options.Model, p.Options.Effort
		}
		if p.Options.Tools != nil {
			child.Tools = intersect(p.Options.Tools, o.Tools)
		}
	}
	if a.SystemPrompt != "" {
		child.SystemPrompt = a.SystemPrompt
	}
	if a.Provider != "" || a.Model != "" {
		child.Provider, child.Model = firstOf(a.Provider, child.Provider), a.Model
	}
	if a.Tools != nil { // [] gives the child no tools; omitted, this agent's (or the profile's)
		child.Tools = a.Tools
	}
	if depth >= signals.MaxChildDepth { // the deepest agents spawn no further
		child.Tools = slices.DeleteFunc(slices.Clone(child.Tools), func(t string) bool { return t == signals.SpawnTool })
	}
	return child, queue, nil
}

func intersect(a, b []string) []string {
	out := []string{}
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// childBudget is share of this agent's remaining budget, after what its
// children hold; zero when it has no budget.
func (l *Loop) childBudget(share float64) (eventlog.ChildBudget, error) {
	b := l.cfg.Options.Budget
	if b == nil || b.MaxTokens <= 0 && b.MaxCost <= 0 {
		return eventlog.ChildBudget{}, nil
	}
	if share == 0 {
		share = signals.DefaultBudgetShare
	}
	heldTokens, heldCost := l.reserved()
	u := l.state.Usage
	var out eventlog.ChildBudget
	if b.MaxTokens > 0 {
		left := b.MaxTokens - u.InputTokens - u.OutputTokens - heldTokens
		if out.MaxTokens = int64(float64(left) * share); out.MaxTokens <= 0 {
			return out, fmt.Errorf("%w: no token budget left to share", signals.ErrInvalidSpawn)
		}
	}
	if b.MaxCost > 0 {
		left := b.MaxCost - b.Prices.Cost(u) - heldCost
		if out.MaxCost = left * share; out.MaxCost <= 0 {
			return out, fmt.Errorf("%w: no cost budget left to share", signals.ErrInvalidSpawn)
		}
	}
	return out, nil
}

// reserved is what this agent's children may still spend of the budgets
// they were given: it is not this agent's to spend.
func (l *Loop) reserved() (tokens int64, cost float64) {
	var prices signals.Prices
	if b := l.cfg.Options.Budget; b != nil {
		prices = b.Prices
	}
	for _, c := range l.state.Children {
		if c.Budget.MaxTokens > 0 {
			tokens += max(0, c.Budget.MaxTokens-c.Spent.InputTokens-c.Spent.OutputTokens)
		}
		if c.Budget.MaxCost > 0 {
			cost += max(0, c.Budget.MaxCost-prices.Cost(c.Spent))
		}
	}
	return tokens, cost
}

// childStarted applies StartChild's outcome: a detached spawn answers now;
// a child that did not start ends, and a call waiting on it hears why.
func (l *Loop) childStarted(now time.Time, in ChildStart) {
	c := l.spawnCall(in.ChildID)
	switch {
	case in.Err != nil:
		l.childEnded(now, in.ChildID, "not started: "+in.Err.Error(), eventlog.Usage{})
	case c != nil && c.detach:
		c.answer(c.ok(fmt.Sprintf(
			"child agent %s started; each turn it settles will reach you as a message from it", in.ChildID)), "")
		l.runTools(now)
	}
}

// spawnCall is the open spawn_agent call in flight for a child, if any.
func (l *Loop) spawnCall(child string) *toolCall {
	t := l.turn.tools
	if l.phase != tooling || t == nil {
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
func (l *Loop) childReported(now time.Time, r signals.ChildReport) {
	ci := slices.IndexFunc(l.state.Children, func(c eventlog.Child) bool { return c.ID == r.Child })
	if ci < 0 {
		return // a child that already ended, or a report for another agent
	}
	if r.Ended != "" {
		l.childEnded(now, r.Child, r.Ended, r.Spent)
		return
	}
	if r.Turn <= 0 || r.ID != signals.ChildReportID(r.Child, r.Turn) || l.duplicate(r.ID) {
		return // not a report the child sends (a raw signal), or one taken already
	}
	l.recent.add(r.ID)
	child := l.state.Children[ci]
	ref := eventlog.Ref("")
	if r.Text != "" {
		ref = eventlog.MessageRef(r.ID)
	}
	l.record(now, ref, eventlog.ChildSettled{ChildID: r.Child, Turn: r.Turn, Reason: r.Reason, Error: r.Error, Text: r.Text,
		Usage: spentSince(child.Spent, r.Spent)})
	answered := r.Reason == eventlog.EndCompleted || r.Reason == eventlog.EndConcluded
	if child.Mode == eventlog.ChildWait {
		if c := l.spawnCall(r.Child); c != nil {
			if answered {
				c.answer(c.ok(r.Text), ref)
			} else {
				c.answer(c.made(eventlog.ToolFailed, childTrouble(r)), "")
			}
			l.runTools(now)
		}
		if child.Settled == 0 { // it has answered the call (or the call was canceled): done with it
			l.emit(SignalChild{ChildID: r.Child, Dispose: &signals.Dispose{Cause: "answered its parent"}})
		}
		return
	}
	content, cref := r.Text, ref
	if !answered || r.Text == "" {
		content, cref = childTrouble(r), ""
	}
	l.record(now, cref, eventlog.InboxInserted{MessageID: r.ID, List: firstList(child.List), Content: content, Wake: true,
		From: &eventlog.Initiator{Kind: eventlog.ByChild, ID: r.Child}})
	l.wakeWaits()
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
func (l *Loop) childEnded(now time.Time, id, status string, spent eventlog.Usage) {
	ci := slices.IndexFunc(l.state.Children, func(c eventlog.Child) bool { return c.ID == id })
	if ci < 0 {
		return
	}
	late := spentSince(l.state.Children[ci].Spent, spent)
	l.record(now, "", eventlog.ChildEnded{ChildID: id, Status: status, Usage: late})
	if c := l.spawnCall(id); c != nil {
		c.settle(eventlog.ToolFailed, fmt.Sprintf("child agent %s ended (%s) before answering", id, status))
		l.runTools(now)
	}
}

// parentGone: this child's parent no longer takes its reports. It finishes
// its turn and stops.
func (l *Loop) parentGone(now time.Time) {
	if !l.state.Disposing {
		l.record(now, "", eventlog.AgentDisposing{Cause: "parent agent " + l.cfg.Parent.ID + " is gone"})
	}
}
