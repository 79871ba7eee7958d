package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

// Agent is the agent workflow. Config holds worker-level knobs; the
// workflow's behaviour comes from its input and its messages.
type Agent struct {
	Config Config
	// Versioned: the worker runs with Worker Deployment Versioning (see
	// RegisterVersioned); each Continue-As-New moves the agent to the
	// deployment's current version.
	Versioned bool
	// observe, when set (tests), sees each run's loop once it is built.
	observe func(*loop.Loop)
	// build, when set (tests), stands for another build (see build).
	build build
}

// run is one run of the agent workflow: the loop plus the Temporal edge.
type run struct {
	cfg       Config
	versioned bool // continue as new onto the current version (Agent.Versioned)
	opts      signals.AgentOptions
	loop      *loop.Loop
	hooks     chain
	// inputs wait for the loop, oldest first: outcomes of commands, and
	// what reports and decisions bring.
	inputs []*queued
	// sel waits for the commands in flight and for wake, which requests
	// signal when they made work due.
	sel    workflow.Selector
	wake   workflow.Channel
	inlets []inlet // every signal channel, in registration order
	turn   turnScope
	timers map[string]workflow.CancelFunc // running timers by loop ID
	maint  []*maintWaiter                 // maintain updates waiting for their task, oldest first
	in     signals.AgentInput
	root   workflow.Context // the run's context: children and external signals outlive a turn
	// continuing is set once the run decided to continue as new.
	continuing bool
	declined   int64 // log length when the loop last declined to continue
	inflight   int   // child starts and signals to other agents not yet resolved
	// reports to the parent not yet delivered, the one in flight first
	// (sent one at a time).
	reports   []signals.ChildReport
	firstTurn int // the last turn before this run
	attrs     attrState
	obs       RunObserver // nil without a Config.Observer
	snap      *snapshot
	admitted  admission // what validators admitted since the history size they last saw

	// seed is set once a ContinueAsNew is executed: what its seed
	// journals, which carry adds to while the run settles.
	seed *seedJournal
}

// Run is the workflow function: validate the input, register handlers,
// then step the loop: execute the commands it returns and feed their
// outcomes back.
func (a Agent) Run(ctx workflow.Context, in signals.AgentInput) (signals.AgentResult, error) {
	cfg := a.Config.withDefaults()
	info := workflow.GetInfo(ctx)
	rc, err := recordRunConfig(ctx, cfg, a.build)
	if err != nil {
		return signals.AgentResult{}, err
	}
	cfg, rules := rc.apply(cfg), rc.rules(a.build)
	if in.Seed == nil {
		// A new agent whose options cannot run is refused at once, with the
		// reason; a continued one keeps running with what it had.
		if err := signals.ValidateOptions(in.Options, cfg.Tools, cfg.Providers); err != nil {
			return signals.AgentResult{}, temporal.NewNonRetryableApplicationError(err.Error(), errInvalidInput, err)
		}
	}
	r := &run{cfg: cfg, versioned: a.Versioned, opts: in.Options, in: in, hooks: enabledHooks(cfg, in.Options.Hooks), attrs: currentAttrs(ctx)}
	r.observe(ctx)
	lc := loop.Config{AgentID: info.WorkflowExecution.ID, Options: in.Options, Modes: cfg.ToolModes,
		Local: cfg.LocalTools, Rules: rules, MaxSeedBytes: cfg.MaxSeedBytes, StreamHooks: r.hooks.stream,
		Parent: in.Parent, Profiles: cfg.Profiles, Providers: cfg.Providers, NoteRefusedSelection: true,
		SessionStart: r.hooks.sessionStartHooks()}
	if in.Seed != nil {
		r.loop = loop.Restore(lc, *in.Seed)
		r.firstTurn = in.Seed.State.Turn
	} else {
		r.loop = loop.New(lc)
	}
	if a.observe != nil {
		a.observe(r.loop)
	}
	r.snap = newSnapshot(ctx, cfg.Snapshots)
	defer r.snap.forget()
	// The first message is accepted before handlers are registered: updates
	// buffered since the start are validated against a state that has it.
	if in.First != nil {
		var from *eventlog.Initiator
		if in.Parent != nil {
			from = &eventlog.Initiator{Kind: eventlog.ByParent, ID: in.Parent.ID}
		}
		rd := r.stepLoop(ctx, loop.Accept{Message: *in.First, List: eventlog.NextTurn, Wake: true, From: from})
		if rd.Err != nil {
			return signals.AgentResult{}, temporal.NewNonRetryableApplicationError(
				"invalid first message", errInvalidInput, rd.Err)
		}
	}
	r.root = ctx
	r.sel, r.wake = workflow.NewSelector(ctx), workflow.NewBufferedChannel(ctx, 1)
	r.sel.AddReceive(r.wake, func(c workflow.ReceiveChannel, _ bool) { c.ReceiveAsync(nil) })
	r.sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
	if err := r.register(ctx); err != nil {
		return signals.AgentResult{}, err
	}
	return r.run(ctx)
}

// errInvalidInput is the ApplicationError type of a rejected workflow input.
const errInvalidInput = "tether.InvalidInput"

// queued is an input waiting for the loop; whoever queued it may wait
// until done to read what the loop made of it.
type queued struct {
	in   loop.Input
	done bool
	rd   loop.Ready
}

// run steps the loop until a command ends the run.
func (r *run) run(ctx workflow.Context) (signals.AgentResult, error) {
	q := &queued{in: loop.Resume{}}
	for {
		if end := r.step(ctx, q); end != nil {
			return end.result, end.err
		}
		var err error
		if q, err = r.next(ctx); err != nil {
			return signals.AgentResult{}, err
		}
	}
}

// step feeds one input to the loop and executes the commands it returns.
func (r *run) step(ctx workflow.Context, q *queued) *end {
	rd := r.stepLoop(ctx, q.in)
	q.done, q.rd = true, rd
	r.continuing = r.continuing && r.loop.Continuing()
	r.syncWaiting(ctx)
	r.snap.publish(r) // before the commands: an activity they start reads it
	return r.carry(ctx, rd)
}

// next waits for the loop's next input: an outcome, work that became due,
// or the decision to continue as new at an idle boundary.
func (r *run) next(ctx workflow.Context) (*queued, error) {
	for {
		if q := r.pop(); q != nil {
			return q, nil
		}
		if r.loop.AtBoundary() && r.inflight == 0 && r.loop.State().Len != r.declined && r.shouldContinueAsNew(ctx) {
			in, err := r.prepareContinue(ctx)
			return &queued{in: in}, err
		}
		if r.loop.Due() || r.loop.Err() != nil {
			return &queued{in: loop.Resume{}}, nil
		}
		r.sel.Select(ctx)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// push queues an outcome for the loop.
func (r *run) push(in loop.Input) *queued {
	q := &queued{in: in}
	r.inputs = append(r.inputs, q)
	return q
}

func (r *run) pop() *queued {
	if len(r.inputs) == 0 {
		return nil
	}
	q := r.inputs[0]
	r.inputs = r.inputs[1:]
	return q
}

// queue is push for a handler: it wakes the run, and the handler may wait
// for the loop's answer (await).
func (r *run) queue(in loop.Input) *queued {
	q := r.push(in)
	r.wake.SendAsync(struct{}{})
	return q
}

// await waits until the loop has taken q.
func (r *run) await(ctx workflow.Context, q *queued) (loop.Ready, error) {
	err := workflow.Await(ctx, func() bool { return q.done })
	return q.rd, err
}

// request steps the loop with a client's or hook's request and executes
// what it asks at once: requests only interrupt, cancel timers and signal
// children, never start work or end the run.
func (r *run) request(ctx workflow.Context, in loop.Input) loop.Ready {
	rd := r.stepLoop(ctx, in)
	r.carry(ctx, rd) // a request's commands act at once: interrupts, timer cancels, signals to children
	// Wake the run even for a refused request: it stays in history, and an
	// idle run must look whether history grew enough to continue as new.
	r.wake.SendAsync(struct{}{})
	return rd
}

func (r *run) details(doing string) string {
	s := r.loop.State()
	return "**" + string(s.Status) + "** turn " + itoa(s.Turn) + " step " + itoa(s.Step) + ": " + doing +
		" (inbox " + itoa(len(s.Inbox.NextTurn)) + " next-turn, " + itoa(len(s.Inbox.NextStep)) + " next-step)"
}
