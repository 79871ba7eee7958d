package loop

import (
	"fmt"
	"slices"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// spawns are the rules a child agent starts by: its options, its task
// queue, its share of the budget and what its siblings hold. They read the
// run's config and the fold and change nothing (they record and emit
// nothing), so they are checked with no Loop around them.
type spawns struct {
	cfg   *Config
	state *eventlog.State
}

// spawns are the spawn rules over this run's config and fold.
func (o *orchestrator) spawns() spawns { return spawns{o.cfg, o.state} }

// start checks a spawn and builds the child's start: its options
// (never more tools than this agent's), its share of the budget, its first
// message from this agent.
func (p spawns) start(id string, a signals.SpawnArgs) (StartChild, eventlog.ChildBudget, error) {
	o := p.cfg.Options
	if err := signals.ValidateSpawnArgs(a, o.Tools); err != nil {
		return StartChild{}, eventlog.ChildBudget{}, err
	}
	depth := 1
	if p.cfg.Parent != nil {
		depth = p.cfg.Parent.Depth + 1
	}
	if depth > signals.MaxChildDepth {
		return StartChild{}, eventlog.ChildBudget{}, fmt.Errorf("%w: a tree of agents is at most %d deep", signals.ErrInvalidSpawn, signals.MaxChildDepth)
	}
	child, queue, err := p.options(a, depth)
	if err != nil {
		return StartChild{}, eventlog.ChildBudget{}, err
	}
	budget, err := p.budget(a.Budget)
	if err != nil {
		return StartChild{}, eventlog.ChildBudget{}, err
	}
	if budget != (eventlog.ChildBudget{}) {
		child.Budget = &signals.Budget{MaxTokens: budget.MaxTokens, MaxCost: budget.MaxCost, Prices: o.Budget.Prices}
	}
	return StartChild{
		ChildID: id, TaskQueue: queue,
		Summary: fmt.Sprintf("agent %s, child of %s", signals.ModelLabel(signals.Selection{Provider: child.Provider, Model: child.Model}), p.cfg.AgentID),
		Input: signals.AgentInput{Options: child, First: &signals.Message{ID: "task", Content: a.Task},
			Parent: &signals.ParentLink{ID: p.cfg.AgentID, Depth: depth}},
	}, budget, nil
}

// options are this agent's options, shaped by the profile and the
// spawn's arguments, with the tools cut to what this agent may use.
func (p spawns) options(a signals.SpawnArgs, depth int) (signals.AgentOptions, string, error) {
	o := p.cfg.Options
	sel := p.state.Selection
	child := signals.AgentOptions{Provider: sel.Provider, Model: sel.Model, Effort: sel.Effort, MaxTokens: o.MaxTokens,
		MaxSteps: o.MaxSteps, Hooks: o.Hooks, HookConfig: o.HookConfig, Retry: o.Retry, MaxParallelTools: o.MaxParallelTools,
		Compaction: o.Compaction, Approval: o.Approval, Wait: o.Wait, Parent: p.cfg.AgentID, Tools: o.Tools}
	queue := ""
	if a.Profile != "" {
		p, ok := p.cfg.Profiles[a.Profile]
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

// budget is share of this agent's remaining budget, after what its
// children hold; zero when it has no budget.
func (p spawns) budget(share float64) (eventlog.ChildBudget, error) {
	b := p.cfg.Options.Budget
	if b == nil || b.MaxTokens <= 0 && b.MaxCost <= 0 {
		return eventlog.ChildBudget{}, nil
	}
	if share == 0 {
		share = signals.DefaultBudgetShare
	}
	heldTokens, heldCost := p.reserved()
	u := p.state.Usage
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
func (p spawns) reserved() (tokens int64, cost float64) {
	var prices signals.Prices
	if b := p.cfg.Options.Budget; b != nil {
		prices = b.Prices
	}
	for _, c := range p.state.Children {
		if c.Budget.MaxTokens > 0 {
			tokens += max(0, c.Budget.MaxTokens-c.Spent.InputTokens-c.Spent.OutputTokens)
		}
		if c.Budget.MaxCost > 0 {
			cost += max(0, c.Budget.MaxCost-prices.Cost(c.Spent))
		}
	}
	return tokens, cost
}
