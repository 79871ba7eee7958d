package chaos

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// A tree's root budget: far more than a tree of the fault spends, so no
// turn ends on it, and what the tree spent is checked against it.
const (
	treeBudget = 2_000_000
	// childLongTurn is 45 seconds of tools, so the harness sees it mid-way
	// even across a server restart.
	childLongTurn = "/repeat 30 slow {}"
	disposeAtStep = 2
)

// tree is a parent whose detached child the harness disposed mid-turn.
type tree struct {
	parent, child string
	step          int   // the child's step when it was disposed
	budget, spent int64 // filled by the check
}

// runDisposeMidTurn: a parent with a token budget spawns a detached
// child, which reports its first turn; the child is then given a long
// turn and disposed in the middle of it. The check proves the parent
// counted every token of the tree (its own calls plus all the child
// spent) and the tree stayed within the root's budget.
func runDisposeMidTurn(ctx context.Context, cf *clientFaults, n int) error {
	ctx, cancel := context.WithTimeout(ctx, faultDeadline)
	defer cancel()
	id := fmt.Sprintf("f%02d-tree", n)
	h, err := cf.create(ctx, id, signals.AgentOptions{Provider: scripted.Name,
		Tools: []string{"echo", "slow", signals.SpawnTool}, Budget: &signals.Budget{MaxTokens: treeBudget}})
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	spawn := `/tool spawn_agent {"task":"/say first report","mode":"detach"}`
	if err := cf.sendOnce(ctx, h, eventlog.MessageID(id+"-spawn"), spawn, false); err != nil {
		return err
	}
	var child string
	if err := waitFor(ctx, "the child's first report", func(ctx context.Context) (bool, error) {
		st, err := h.Status(ctx)
		for _, c := range st.Children {
			child = c.ID
			return c.Settled > 0, err
		}
		return false, err
	}); err != nil {
		return err
	}
	ch, err := attach(ctx, cf.agents, child)
	if err != nil {
		return err
	}
	if err := cf.sendOnce(ctx, ch, eventlog.MessageID(child+"-long"), childLongTurn, true); err != nil {
		return err
	}
	t := tree{parent: id, child: child}
	if err := waitFor(ctx, "the child's long turn", func(ctx context.Context) (bool, error) {
		st, err := ch.Status(ctx)
		if err == nil && st.Idle() && st.Turn >= 2 {
			return false, fmt.Errorf("%w: the child's long turn ended before the harness saw it mid-way", errGiveUp)
		}
		t.step = st.Step
		return err == nil && st.InTurn && st.Step >= disposeAtStep, err
	}); err != nil {
		return err
	}
	if _, err := persist(ctx, func(ctx context.Context) error {
		err := ch.Dispose(ctx, "disposed mid-turn by chaos")
		if errors.Is(err, agent.ErrClosed) { // an earlier try's dispose
			return nil
		}
		return err
	}); err != nil {
		return fmt.Errorf("dispose %s: %w", child, err)
	}
	cf.mu.Lock()
	cf.trees = append(cf.trees, t)
	cf.mu.Unlock()
	return settle(ctx, h)
}

// sendOnce sends a followup under id until the agent has it, and records
// it; mayCancel when the harness will end its turn early.
func (cf *clientFaults) sendOnce(ctx context.Context, h *agent.Handle, id eventlog.MessageID, content string, mayCancel bool) error {
	dup := false
	tries, err := persist(ctx, func(ctx context.Context) error {
		_, err := h.Followup(ctx, content, agent.WithMessageID(id), agent.Acknowledged())
		if errors.Is(err, signals.ErrDuplicateID) {
			dup, err = true, nil
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("send %s: %w", id, err)
	}
	cf.led.accepted(h.ID, id, sentMessage{op: opFollowup, content: content, mayCancel: mayCancel}, tries, dup)
	return nil
}

func attach(ctx context.Context, agents *agent.Client, id string) (*agent.Handle, error) {
	var h *agent.Handle
	_, err := persist(ctx, func(ctx context.Context) error {
		var err error
		h, err = agents.Attach(ctx, id)
		return err
	})
	return h, err
}

// disposedMidTurn reports whether the harness disposed agent id in the
// middle of a turn, whose end is then canceled, not completed.
func (cf *clientFaults) disposedMidTurn(id string) bool {
	if cf == nil {
		return false
	}
	cf.mu.Lock()
	defer cf.mu.Unlock()
	for _, t := range cf.trees {
		if t.child == id {
			return true
		}
	}
	return false
}

// checkTrees: every tree's root counted each token: its status's usage
// is what its own model calls spent plus everything each child spent (the
// closed child's own result), every child it started has ended in its
// log, and the tree spent no more than the root's budget.
func (cf *clientFaults) checkTrees(ctx context.Context, records map[string]*record, v *violations) {
	cf.mu.Lock()
	trees := cf.trees
	cf.mu.Unlock()
	for i, t := range trees {
		r := records[t.parent]
		if r == nil || r.events == nil {
			v.add("%s: no log to check the tree's spending", t.parent)
			continue
		}
		own, children, ended := eventlog.Usage{}, []string{}, map[string]bool{}
		for _, e := range r.events {
			switch e := e.(type) {
			case eventlog.AssistantMessage:
				own = own.Add(e.Usage)
			case eventlog.ChildStarted:
				children = append(children, e.ChildID)
			case eventlog.ChildEnded:
				ended[e.ChildID] = true
			}
		}
		want := own
		for _, c := range children {
			if !ended[c] {
				v.add("%s: child %s never ended in its parent's log", t.parent, c)
			}
			var res signals.AgentResult
			if _, err := persist(ctx, func(ctx context.Context) error {
				return cf.c.GetWorkflow(ctx, c, "").Get(ctx, &res)
			}); err != nil {
				v.add("%s: child %s has no result: %v", t.parent, c, err)
				continue
			}
			want = want.Add(res.Usage)
		}
		var st signals.StatusView
		if _, err := persist(ctx, func(ctx context.Context) error {
			h, err := cf.agents.Attach(ctx, t.parent)
			if err == nil {
				st, err = h.Status(ctx)
			}
			return err
		}); err != nil {
			v.add("%s: status: %v", t.parent, err)
			continue
		}
		if st.Usage != want {
			v.add("%s: the tree's usage is %+v, but its own calls and its children (%s) spent %+v",
				t.parent, st.Usage, strings.Join(children, ", "), want)
		}
		spent := st.Usage.InputTokens + st.Usage.OutputTokens
		if spent > treeBudget {
			v.add("%s: the tree spent %d tokens, over the root's budget of %d", t.parent, spent, treeBudget)
		}
		cf.mu.Lock()
		cf.trees[i].spent, cf.trees[i].budget = spent, treeBudget
		cf.mu.Unlock()
	}
}

func treeSteps(ts []tree) string {
	var s []string
	for _, t := range ts {
		s = append(s, fmt.Sprint(t.step))
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
