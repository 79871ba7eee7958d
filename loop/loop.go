package loop

import (
	"fmt"
	"time"

	"github.com/tetherdev/tether/eventlog"
	"github.com/tetherdev/tether/signals"
)

// Rules is the version of the loop's rules a run follows. A run keeps the
// rules it started with (the shell records them once per run), so a worker
// upgrade never changes what a running agent's history means; the next run
// after Continue-As-New follows Latest. A change to what the loop records
// or decides adds the next version, and keeps every earlier one from
// Baseline on.
type Rules int

const (
	// Rules3 are the seeds' rules (see the package doc), the baseline of
	// the first tagged release. (Versions 1 and 2 were pre-release
	// generations; no build from the baseline on replays them.)
	Rules3 Rules = 3
	// Rules4 add session-start: a fresh agent that enabled session-start
	// hooks (Config.SessionStart) runs them before its first turn and
	// records session/started (sessionstart.go).
	Rules4 Rules = 4
	// Rules5 add edit before approve: an approval may carry edited
	// arguments (signals.Decision.Args), recorded on decision/made, which
	// the call runs with (orchestrate.go). A rules-4 run refuses them.
	Rules5 Rules = 5
	// RulesRewind add rewinding in place: an idle agent may be brought back
	// to the end of an earlier turn (signals.RewindUpdate), recorded as
	// session/rewound, and the run keeps (and its seed carries) where each
	// turn ended (rewind.go). An earlier run refuses a rewind.
	RulesRewind Rules = 6
	// RulesCallFromHeader: a model call's input carries no configuration
	// (signals.ModelInput.Call left out, but for its stream hooks): the
	// activity takes turn and step from its activity ID and the rest from
	// the request/header its log prefix recorded last, which a run records
	// at its first call even when unchanged, so its own log holds it
	// (step.go). A call of an earlier run names all of it in every input.
	RulesCallFromHeader Rules = 7
	// RulesUpgradeTask add the upgrade maintenance task
	// (signals.TaskUpgrade): at a true idle phase it records
	// maintenance/done, answers, and the run continues as new (UpgradeDue).
	// Runs under earlier rules refuse the task.
	RulesUpgradeTask Rules = 8
	// RulesA2A add remote A2A agents as tools: an "a2a:<name>" entry among
	// the agent's tools offers the model the worker's tool
	// signals.A2AToolName(name) (step.go). Under earlier rules the entry
	// is a tool name like any other, which no worker offered.
	RulesA2A Rules = 9
	// Baseline is the oldest rules this build follows.
	Baseline = Rules3
	// Latest is what new runs follow.
	Latest = RulesA2A
)

// Config is what one run of the loop is made of. It never changes during
// the run.
type Config struct {
	AgentID string
	Options signals.AgentOptions
	// Modes are the execution modes of the worker's tools by name; tools
	// not listed run in parallel.
	Modes map[string]signals.ToolMode
	// Local names the tools that run as local activities (fast tools).
	Local []string
	// Rules the run follows; zero means Latest. Rules outside Baseline to
	// Latest fail the run at its first step (ErrUnknownRules).
	Rules Rules
	// MaxSeedBytes bounds the model context and the pending messages a
	// Continue-As-New seed carries; zero means DefaultMaxSeedBytes.
	MaxSeedBytes int
	// StreamHooks are the llm/stream hooks the agent enabled, outermost
	// first; every model call runs through them (signals.CallConfig.Stream).
	StreamHooks []string
	// Parent, when set, is the agent that started this one: it gets a
	// report of every settled turn.
	Parent *signals.ParentLink
	// Profiles are the worker's named child profiles (spawn_agent's
	// profile argument).
	Profiles map[string]signals.Profile
	// Providers the worker offers; a model switch to another is refused.
	// Nil leaves it unchecked.
	Providers []string
	// NoteRefusedSelection: a refused model switch is recorded, as a
	// model/selected event with its reason (eventlog.ModelSelected.Refused),
	// rather than left out of the log. The workflow shell sets it in every
	// run.
	NoteRefusedSelection bool
	// SessionStart names the enabled hooks that have a session-start
	// point, in chain order: under Rules4 a fresh agent runs them once,
	// before its first turn (sessionstart.go). A restored run never does.
	SessionStart []string
}

// DefaultMaxSeedBytes keeps a seed far below Temporal's 2 MiB payload limit.
const DefaultMaxSeedBytes = 512 << 10

// Ready is what one Step did: the events it recorded, those that must
// become durable now, the commands now due, and, for a request, why it was
// refused (it then changed nothing; a refused model switch may leave its
// record, see NoteRefusedSelection).
//
// Journal is the slot for what must become durable: the events no earlier
// Ready's Journal held, in history form, up to where the loop decided they
// are due (a command of this Ready that history keeps the payload of, the
// agent going idle, the end of the run). It is often not Recorded: a
// request's events wait for the next such point. The loop decides when;
// the shell decides how history carries it, by Carry.
type Ready struct {
	Recorded []eventlog.Envelope
	Journal  signals.Journal
	Commands []Command
	Err      error
}

// Loop is the agent loop of the seeds as a pure state machine. It performs
// no I/O and reads no clock: times arrive as arguments, everything else as
// inputs. Not safe for concurrent use; workflow code is single-threaded.
type Loop struct {
	cfg   Config
	local map[string]bool

	// The session log of this run and its fold.
	log     []eventlog.Envelope
	base    int64 // seq of log[0]
	state   eventlog.State
	journal []eventlog.Envelope // history form of events no Ready's Journal held yet
	durable int                 // how many of them this step's Ready journals (see carry)

	// Derived from the log (and carried in a seed): recently accepted
	// message IDs, hook-made messages so far, the model context's size.
	recent ids
	made   int
	chars  int // content of the model context (see track)
	system int // of which the system prompt
	msgs   int // messages of the model context, without the system prompt

	// From the seed of a continued run: the conversation up to base, the
	// run it came from, the chain's runs before this one.
	context      eventlog.ConversationSnapshot
	contextBytes int // its content, as a log page counts it
	prevRun      string
	runs         int

	// Control state: where the loop stands while it waits for an outcome.
	// It is not durable: replay rebuilds it by stepping the same inputs,
	// and a seed is taken only at an idle boundary, where it is empty.
	phase phase
	trail trail // the latest phase changes, for ErrInvalidTransition's message
	turn  turnWork
	comp  *compaction
	mcp   mcpState
	done  bool // ContinueAsNew was emitted
	// upgrade: an upgrade task is done in this run, so the run continues
	// as new at its next boundary (UpgradeDue). Replay rebuilds it from
	// the same inputs; a seed needs none, the next run being the upgrade.
	upgrade bool
	// turnEnded: a turn just ended, so Step stops there and the shell may
	// continue as new before the next one opens; stepEnded likewise between
	// two steps.
	turnEnded, stepEnded bool
	// orch is orchestration: children, decisions by people, durable
	// waits, and their timers (orch.go).
	orch orchestrator
	// rearming: a restored run has not started its scheduled messages'
	// timers yet; its first step does.
	rearming bool
	// kick: a request left the open step work that no outcome will prompt.
	kick bool
	// start: the session-start hooks are due (a fresh agent, Rules4).
	start bool
	// header: this run recorded a request/header (RulesCallFromHeader).
	// Derived: replay rebuilds it, and a continued run starts without.
	header bool
	out    []Command
	// fork: a forked agent's first event, recorded by the first Step
	// (fork.go).
	fork *eventlog.SessionForked
	// marks are the turn ends a rewind may go back to (RulesRewind on;
	// rewind.go); a seed carries them.
	marks signals.RewindMarks

	err error // a corrupt transition; the workflow fails with it
}

// New returns the loop of a fresh agent whose log starts at seq 0.
func New(cfg Config) *Loop {
	if cfg.Rules == 0 {
		cfg.Rules = Latest
	}
	if cfg.MaxSeedBytes <= 0 {
		cfg.MaxSeedBytes = DefaultMaxSeedBytes
	}
	o := &cfg.Options
	if o.MaxParallelTools <= 0 {
		o.MaxParallelTools = signals.DefaultMaxParallelTools
	}
	o.MaxParallelTools = min(o.MaxParallelTools, MaxCallsPerStep)
	l := &Loop{cfg: cfg, local: map[string]bool{}, recent: newIDs(), state: eventlog.NewState(0)}
	if cfg.Rules < Baseline || cfg.Rules > Latest {
		l.err = fmt.Errorf("%w: %d (this build follows %d to %d)", ErrUnknownRules, cfg.Rules, Baseline, Latest)
	}
	l.orch = newOrchestrator(l)
	for _, n := range cfg.Local {
		l.local[n] = true
	}
	l.start = cfg.Rules >= Rules4 && len(cfg.SessionStart) > 0
	if cfg.Rules >= RulesRewind {
		l.marks = freshMarks()
	}
	l.state.Selection = signals.Selection{Provider: o.Provider, Model: o.Model, Effort: o.Effort}
	l.mcp = mcpState{servers: signals.MCPServers(o.Tools), listings: eventlog.Listings{}}
	return l
}

// Step applies one input and returns what it recorded and what is due.
func (l *Loop) Step(now time.Time, in Input) Ready {
	from := len(l.log)
	l.out = nil
	l.recordFork(now)
	if l.rearming {
		l.rearming = false
		l.rearm(now)
	}
	var refused error
	if l.err == nil {
		refused = l.step(now, in)
	}
	if l.done { // continuing as new: the seed carries whatever is recorded
		l.carry()
	}
	j := l.takeJournal()
	if l.err != nil { // what the commands would have carried goes with them
		l.out, j = []Command{Fail{Err: l.err}}, signals.Journal{}
	}
	return Ready{Recorded: l.log[from:len(l.log):len(l.log)], Journal: j, Commands: l.out, Err: refused}
}

func (l *Loop) step(now time.Time, in Input) error {
	switch in := in.(type) {
	case Accept:
		return l.accept(now, in)
	case Make:
		_, err := l.make(now, in.Content, in.List, in.Wake)
		return err
	case Cancel:
		return l.cancel(now, in.Cause, in.KeepInbox)
	case Dispose:
		return l.dispose(now, in.Cause)
	case SelectModel:
		if err := signals.ValidateSelection(in.Selection, l.cfg.Providers); err != nil {
			if l.cfg.NoteRefusedSelection {
				l.record(now, "", eventlog.ModelSelected{Selection: in.Selection, Refused: err.Error()})
			}
			return err // every turn would fail on it
		}
		l.record(now, "", eventlog.ModelSelected{Selection: in.Selection, Resolved: in.Resolved})
		return nil
	case Maintain:
		return l.maintain(now, in.Task)
	case Rewind:
		return l.rewind(now, in)
	default: // an outcome or orchestration: below
	}
	if l.phase == finished {
		return l.late(now, in)
	}
	refused := l.outcome(now, in)
	l.advance(now)
	return refused
}

// late applies what arrives after the loop finished: nothing after a
// dispose; after ContinueAsNew (the shell settles before it takes the
// seed), children's reports and ends, which the seed then carries. A spawn
// waits for the next run.
func (l *Loop) late(now time.Time, in Input) error {
	if !l.done {
		return nil
	}
	switch in.(type) {
	case SpawnChild, Decide:
		return signals.ErrContinuing
	default: // children's reports and ends; the run's own outcomes change nothing
		l.orch.step(now, in)
	}
	return nil
}

// outcome applies the outcome of a command in its phase, or an input that
// may start work (orchestration); it returns why such an input was refused.
func (l *Loop) outcome(now time.Time, in Input) error {
	if ok, refused := l.orch.step(now, in); ok {
		return refused
	}
	switch in := in.(type) {
	case Resume:
		l.stepEnded = false // go on with the turn
		if l.kicked() {
			l.kick = false
			l.runTools(now)
		}
	case Continue:
		l.continueAsNew(now)
	case HooksRan:
		if in.Point == PointSessionStart {
			l.sessionStarted(now, in)
			break
		}
		l.hooksRan(now, in)
	case ToolsListed:
		if l.expect(listing, in) {
			l.toolsListed(now, in)
		}
	case ModelChosen:
		if l.expect(choosing, in) {
			l.modelChosen(now, in)
		}
	case PreStepDecided:
		if l.expect(deciding, in) {
			l.preStepDecided(now, in)
		}
	case RequestShaped:
		if l.expect(shaping, in) {
			l.requestShaped(now, in)
		}
	case ModelDone:
		if l.expect(calling, in) {
			l.modelDone(now, in)
		}
	case Recovered:
		if l.expect(recovering, in) {
			l.recovered(now, in)
		}
	case TimerFired:
		l.timerFired(now, in)
	case ToolPreRan:
		if l.expect(tooling, in) {
			l.toolPreRan(now, in)
		}
	case ToolDone:
		if l.expect(tooling, in) {
			l.toolDone(now, in)
		}
	case ToolPostRan:
		if l.expect(tooling, in) {
			l.toolPostRan(now, in)
		}
	case Summarized:
		if l.expect(compacting, in) {
			l.summarized(now, in)
		}
	default: // a request: step applied it
	}
	return nil
}

// expect reports whether the loop waits in phase p; otherwise the shell
// sent an outcome nobody asked for, which is a bug that fails the run.
func (l *Loop) expect(p phase, in Input) bool {
	if l.phase != p {
		l.fail(l.invalid("%T", in))
		return false
	}
	return true
}

func (l *Loop) emit(c Command) { l.out = append(l.out, c) }

func (l *Loop) fail(err error) {
	if l.err == nil {
		l.err = err
	}
}

// Err is the first invalid transition the loop met, if any.
func (l *Loop) Err() error { return l.err }

// State is the folded session log.
func (l *Loop) State() eventlog.State { return l.state }

// Options are the agent's options, with defaults applied.
func (l *Loop) Options() signals.AgentOptions { return l.cfg.Options }

// ID is the agent's ID.
func (l *Loop) ID() string { return l.cfg.AgentID }

// Proposed is the step being proposed or run.
func (l *Loop) Proposed() Step { return l.turn.step }

// Rules are the rules this run follows.
func (l *Loop) Rules() Rules { return l.cfg.Rules }
