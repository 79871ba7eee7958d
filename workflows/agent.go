package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Agent is the agent workflow. Config holds worker-level knobs; the
// workflow's behaviour comes from its input and its messages.
type Agent struct {
	Config Config
}

// run is one run of the agent workflow: the core plus the Temporal edge.
type run struct {
	cfg    Config
	opts   signals.AgentOptions
	core   *Core
	hooks  chain
	drains []func() // hand delivered-but-unreceived signals to their handlers
	// continuing is set once the run decided to continue as new.
	continuing bool
	maint      maintenance
	firstTurn  int                 // the last turn before this run
	cancel     workflow.CancelFunc // cancels the in-flight command, if any
	attrs      attrState           // search attribute values last written
}

// Run is the workflow function: validate the input, register handlers, then
// loop: ask the core for the due command, execute it, report back.
func (a Agent) Run(ctx workflow.Context, in signals.AgentInput) (signals.AgentResult, error) {
	cfg := a.Config.withDefaults()
	info := workflow.GetInfo(ctx)
	rc, err := recordRunConfig(ctx, cfg)
	if err != nil {
		return signals.AgentResult{}, err
	}
	cfg = rc.apply(cfg)
	r := &run{cfg: cfg, opts: in.Options, core: NewCore(info.WorkflowExecution.ID, in.Options, cfg.ToolModes),
		hooks: enabledHooks(cfg, in.Options.Hooks)}
	r.core.SetLocalTools(cfg.LocalTools)
	r.attrs = currentAttrs(ctx)
	if in.Seed != nil {
		r.core.Restore(*in.Seed)
		r.firstTurn = in.Seed.State.Turn
	}
	// The first message is accepted before handlers are registered: updates
	// buffered since the start are validated against a state that has it.
	if in.First != nil {
		if _, err := r.core.Accept(workflow.Now(ctx), *in.First, eventlog.NextTurn, true); err != nil {
			return signals.AgentResult{}, temporal.NewNonRetryableApplicationError(
				"invalid first message", errInvalidInput, err)
		}
	}
	if err := r.register(ctx); err != nil {
		return signals.AgentResult{}, err
	}
	return r.loop(ctx)
}

// errInvalidInput is the ApplicationError type of a rejected workflow input.
const errInvalidInput = "tether.InvalidInput"

func (r *run) loop(ctx workflow.Context) (signals.AgentResult, error) {
	for {
		if r.core.AtBoundary() && r.shouldContinueAsNew(ctx) {
			if err := r.continueAsNew(ctx); err != nil {
				return signals.AgentResult{}, err
			}
		}
		switch cmd := r.core.Next(workflow.Now(ctx)).(type) {
		case AwaitWork:
			r.journal(ctx, cmd.Journal)
			r.syncAttrs(ctx)
			workflow.SetCurrentDetails(ctx, r.details("idle"))
			err := workflow.Await(ctx, func() bool {
				return r.core.HasWork() || r.core.Disposed() || r.core.HasJournal() || r.core.HasMaintenance()
			})
			if err != nil {
				return signals.AgentResult{}, err
			}
		case RunHooks:
			r.syncAttrs(ctx)
			r.runHooks(ctx, cmd)
		case ChooseModel:
			r.chooseModel(ctx, cmd)
		case DecidePreStep:
			r.preStep(ctx, cmd)
		case ShapeRequest:
			r.shapeRequest(ctx, cmd)
		case CallModel:
			r.syncAttrs(ctx)
			workflow.SetCurrentDetails(ctx, r.details(cmd.Summary))
			r.callModel(ctx, cmd)
		case Recover:
			workflow.SetCurrentDetails(ctx, r.details("recovering from "+string(cmd.Failure.Kind)))
			r.recover(ctx, cmd)
		case RunTools:
			workflow.SetCurrentDetails(ctx, r.details("running tools"))
			r.runTools(ctx, cmd)
		case RunMaintenance:
			r.runMaintenance(ctx, cmd)
		case Finish:
			r.syncAttrs(ctx)
			err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
			return cmd.Result, err
		case Fail:
			workflow.GetLogger(ctx).Error("Session log transition failed", "error", cmd.Err)
			return signals.AgentResult{}, cmd.Err
		}
	}
}

// journal writes the log tail that no command carried into history, as a
// side-effect marker, so history alone holds the whole session log.
func (r *run) journal(ctx workflow.Context, j signals.Journal) {
	if j.IsZero() {
		return
	}
	workflow.SideEffect(ctx, func(workflow.Context) any { return signals.JournalMarker{Journal: j} })
}

func (r *run) details(doing string) string {
	s := r.core.State()
	return "**" + string(s.Status) + "** turn " + itoa(s.Turn) + " step " + itoa(s.Step) + ": " + doing +
		" (inbox " + itoa(len(s.Inbox.NextTurn)) + " next-turn, " + itoa(len(s.Inbox.NextStep)) + " next-step)"
}
