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
	// observe, when set (tests), sees each run's loop once it is built.
	observe func(*loop.Loop)
}

// run is one run of the agent workflow: the loop plus the Temporal edge.
type run struct {
	cfg   Config
	opts  signals.AgentOptions
	loop  *loop.Loop
	hooks chain
	// inputs are outcomes of commands waiting for the loop, oldest first.
	inputs []loop.Input
	// sel waits for the commands in flight and for wake, which requests
	// signal when they made work due.
	sel    workflow.Selector
	wake   workflow.Channel
	drains []func() // hand delivered-but-unreceived signals to their handlers
	turn   turnScope
	maint  []*maintWaiter // maintain updates waiting for their task, oldest first
	// continuing is set once the run decided to continue as new.
	continuing bool
	declined   int64 // log length when the loop last declined to continue
	firstTurn  int   // the last turn before this run
	attrs      attrState
	snap       *snapshot
	idleTail   bool // the run's config omits the marker of a plain idle tail
}

// Run is the workflow function: validate the input, register handlers,
// then step the loop: execute the commands it returns and feed their
// outcomes back.
func (a Agent) Run(ctx workflow.Context, in signals.AgentInput) (signals.AgentResult, error) {
	cfg := a.Config.withDefaults()
	info := workflow.GetInfo(ctx)
	rc, err := recordRunConfig(ctx, cfg)
	if err != nil {
		return signals.AgentResult{}, err
	}
	cfg = rc.apply(cfg)
	r := &run{cfg: cfg, opts: in.Options, hooks: enabledHooks(cfg, in.Options.Hooks), attrs: currentAttrs(ctx),
		idleTail: rc.IdleTail}
	lc := loop.Config{AgentID: info.WorkflowExecution.ID, Options: in.Options, Modes: cfg.ToolModes,
		Local: cfg.LocalTools, Rules: rc.rules(), MaxSeedBytes: cfg.MaxSeedBytes, StreamHooks: r.hooks.stream}
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
		rd := r.loop.Step(workflow.Now(ctx), loop.Accept{Message: *in.First, List: eventlog.NextTurn, Wake: true})
		if rd.Err != nil {
			return signals.AgentResult{}, temporal.NewNonRetryableApplicationError(
				"invalid first message", errInvalidInput, rd.Err)
		}
	}
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

// run steps the loop until a command ends the run.
func (r *run) run(ctx workflow.Context) (signals.AgentResult, error) {
	var in loop.Input = loop.Resume{}
	for {
		rd := r.loop.Step(workflow.Now(ctx), in)
		r.continuing = r.continuing && r.loop.Continuing()
		r.snap.publish(r) // before the commands: an activity they start reads it
		for _, cmd := range rd.Commands {
			if end := r.exec(ctx, cmd); end != nil {
				return end.result, end.err
			}
		}
		var err error
		if in, err = r.next(ctx); err != nil {
			return signals.AgentResult{}, err
		}
	}
}

// next waits for the loop's next input: an outcome, work that became due,
// or the decision to continue as new at an idle boundary.
func (r *run) next(ctx workflow.Context) (loop.Input, error) {
	for {
		if len(r.inputs) > 0 {
			in := r.inputs[0]
			r.inputs = r.inputs[1:]
			return in, nil
		}
		if r.loop.AtBoundary() && r.loop.State().Len != r.declined && r.shouldContinueAsNew(ctx) {
			return r.prepareContinue(ctx)
		}
		if r.loop.Due() || r.loop.Err() != nil {
			return loop.Resume{}, nil
		}
		r.sel.Select(ctx)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// push queues an outcome for the loop.
func (r *run) push(in loop.Input) { r.inputs = append(r.inputs, in) }

// request steps the loop with a client's or hook's request and interrupts
// the turn's work when it says so. Requests make no other commands.
func (r *run) request(ctx workflow.Context, in loop.Input) loop.Ready {
	rd := r.loop.Step(workflow.Now(ctx), in)
	for _, cmd := range rd.Commands {
		if _, ok := cmd.(loop.Interrupt); ok {
			r.turn.interrupt()
		}
	}
	if r.loop.Due() || r.loop.Err() != nil {
		r.wake.SendAsync(struct{}{})
	}
	return rd
}

func (r *run) details(doing string) string {
	s := r.loop.State()
	return "**" + string(s.Status) + "** turn " + itoa(s.Turn) + " step " + itoa(s.Step) + ": " + doing +
		" (inbox " + itoa(len(s.Inbox.NextTurn)) + " next-turn, " + itoa(len(s.Inbox.NextStep)) + " next-step)"
}
