package signals

import (
	"encoding/json"
	"time"

	"github.com/tetherdev/tether/eventlog"
)

// AgentOptions configure one agent. They are part of the workflow input, so
// they never hold a secret: credentials live on the worker.
type AgentOptions struct {
	// Provider names a model provider registered on the worker ("scripted",
	// "openai"). Empty means the worker's default.
	Provider string `json:"provider,omitempty"`
	// Model is the provider's model name. Empty means the provider's default.
	Model        string `json:"model,omitempty"`
	SystemPrompt string `json:"system_prompt,omitempty"`
	// Tools names the worker's registered tools this agent may call. An
	// empty list is written as such (omitzero), so a profile's "no tools"
	// survives the run config's round trip; omitted, a profile gives its
	// child the parent's tools.
	Tools     []string `json:"tools,omitzero"`
	MaxTokens int      `json:"max_tokens,omitempty"`
	// MaxSteps bounds the steps of one turn: the turn-budget hook (on by
	// default) cancels a turn that would take more, with a recorded reason.
	// 0 means DefaultMaxSteps.
	MaxSteps int `json:"max_steps,omitempty"`
	// Parent is the ID of the agent that started this one, if any.
	Parent string `json:"parent,omitempty"`
	// Effort is the reasoning effort (low, medium, high) for providers that
	// have one.
	Effort string `json:"effort,omitempty"`
	// Prompt, when set, assembles the system prompt from named sections and
	// variables once per step; SystemPrompt then comes first.
	Prompt *Prompt `json:"prompt,omitempty"`
	// Hooks enables worker-registered hooks by name, in chain order. Nil
	// enables the worker's defaults; an empty list enables none.
	Hooks []string `json:"hooks"`
	// HookConfig holds per-hook configuration by hook name.
	HookConfig map[string]json.RawMessage `json:"hook_config,omitempty"`
	// Retry configures the default retry policy hook ("retry").
	Retry *RetryPolicy `json:"retry,omitempty"`
	// MaxParallelTools bounds the tool calls of one step running at once;
	// 0 means DefaultMaxParallelTools.
	MaxParallelTools int `json:"max_parallel_tools,omitempty"`
	// Budget bounds what the agent may spend over its whole life.
	Budget *Budget `json:"budget,omitempty"`
	// Compaction configures the compaction hook.
	Compaction *Compaction `json:"compaction,omitempty"`
	// Approval says which tool calls wait for a person.
	Approval *ApprovalPolicy `json:"approval,omitempty"`
	// Wait bounds the wait tool.
	Wait *WaitPolicy `json:"wait,omitempty"`
}

// Compaction configures the compaction hook (seed 002's
// dsh-compaction-basic): a pressure check before each step when Window is
// set, and recovery from a context_overflow failure always.
type Compaction struct {
	// Window is the model's context window in tokens; 0 turns the pressure
	// check off.
	Window int `json:"window,omitempty"`
	// Threshold is the fraction of Window that triggers compaction (0.8).
	Threshold float64 `json:"threshold,omitempty"`
	// KeepRecent messages are kept verbatim (8).
	KeepRecent int `json:"keep_recent,omitempty"`
	// PruneOver prunes older tool results longer than this many bytes
	// before summarising (2048); negative turns pruning off.
	PruneOver int `json:"prune_over,omitempty"`
}

// Defaults of a Compaction policy.
const (
	DefaultCompactThreshold = 0.8
	DefaultKeepRecent       = 8
	DefaultPruneOver        = 2048
)

// Policy is c with its zero fields set to the defaults; a nil c is the
// default policy (no pressure check, since it has no window).
func (c *Compaction) Policy() Compaction {
	var p Compaction
	if c != nil {
		p = *c
	}
	if p.Threshold <= 0 || p.Threshold > 1 {
		p.Threshold = DefaultCompactThreshold
	}
	if p.KeepRecent <= 0 {
		p.KeepRecent = DefaultKeepRecent
	}
	if p.PruneOver == 0 {
		p.PruneOver = DefaultPruneOver
	}
	return p
}

// Budget bounds an agent's spending across its whole chain of runs. When a
// token or cost budget is exhausted, a turn ends with reason budget before
// its next model call. MaxTurns and MaxStepsPerTurn are enforced by the
// turn-budget policy hook (hook.TurnBudget).
type Budget struct {
	MaxTokens int64   `json:"max_tokens,omitempty"` // input + output tokens
	MaxCost   float64 `json:"max_cost,omitempty"`   // in the currency of Prices
	Prices    Prices  `json:"prices,omitzero"`      // per million tokens
	MaxTurns  int     `json:"max_turns,omitempty"`  // turn-budget hook
	MaxSteps  int     `json:"max_steps,omitempty"`  // per turn, turn-budget hook
}

// Prices are costs per million tokens. A prompt token is billed at one of
// three prices: Cached when the provider read it from its prompt cache
// (eventlog.Usage.CachedTokens), CacheWrite when it wrote it to the cache
// (CacheWriteTokens), Input otherwise. Anthropic bills cache reads at 0.1×
// its input price and writes at 1.25× (2× for a 1-hour cache); OpenAI bills
// reads at its cached-input price (a half to a tenth of input, by model)
// and lists no price for writes, which are billed as input: its CacheWrite
// stays 0.
type Prices struct {
	Input  float64 `json:"input,omitempty"`
	Output float64 `json:"output,omitempty"`
	// Cached is the price of a cached prompt token, billed instead of
	// Input; 0 prices cache reads at nothing.
	Cached float64 `json:"cached,omitempty"`
	// CacheWrite is the price of a prompt token written to the cache,
	// billed instead of Input; 0 means it is priced as Input.
	CacheWrite float64 `json:"cache_write,omitempty"`
}

// Cost is what usage costs at these prices. Usage recorded before cache
// writes were counted has none, and costs what it always did.
func (p Prices) Cost(u eventlog.Usage) float64 {
	write := p.CacheWrite
	if write == 0 {
		write = p.Input
	}
	fresh := max(0, u.InputTokens-u.CachedTokens-u.CacheWriteTokens)
	return (float64(fresh)*p.Input + float64(u.CachedTokens)*p.Cached + float64(u.CacheWriteTokens)*write +
		float64(u.OutputTokens)*p.Output) / 1e6
}

// DefaultMaxParallelTools bounds a step's concurrent tool calls.
const DefaultMaxParallelTools = 4

// Selection is the model a step uses (eventlog.Selection).
type Selection = eventlog.Selection

// Prompt is a system prompt built from named sections and variables.
// Sections are joined by blank lines; {{name}} is replaced by the variable
// of that name, or by a built-in: agent_id, provider, model, effort, turn.
type Prompt struct {
	Sections  []Section         `json:"sections,omitempty"`
	Variables map[string]string `json:"variables,omitempty"`
}

// Section is one named part of a Prompt.
type Section struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// RetryPolicy configures the retry hook: which failure kinds open a retry
// turn, how many retry turns a chain may take, and the backoff between
// them (on durable timers; a provider's retry-after wins when longer).
type RetryPolicy struct {
	MaxRetries int           `json:"max_retries,omitempty"`
	Initial    time.Duration `json:"initial,omitempty"`
	Max        time.Duration `json:"max,omitempty"`
	Multiplier float64       `json:"multiplier,omitempty"`
	// Kinds lists retried failure kinds; empty means the retryable ones.
	Kinds []eventlog.FailureKind `json:"kinds,omitempty"`
}

// ToolMode says how a tool call is scheduled against the step's other calls.
type ToolMode string

const (
	// ToolParallel calls run concurrently, up to the agent's bound.
	ToolParallel ToolMode = "parallel"
	// ToolSequential calls run one at a time, in model order.
	ToolSequential ToolMode = "sequential"
	// ToolExclusive calls are barriers: every earlier call finishes first,
	// and no later call starts until it is done.
	ToolExclusive ToolMode = "exclusive"
)

// DefaultMaxSteps bounds a turn whose options say nothing.
const DefaultMaxSteps = 64

// AgentInput starts an agent workflow.
type AgentInput struct {
	Options AgentOptions `json:"options"`
	// First, when set, is accepted as a followup before anything else.
	First *Message `json:"first,omitempty"`
	// Seed, when set, continues the agent from a previous run.
	Seed *Seed `json:"seed,omitempty"`
	// Parent, when set, is the agent that started this one as its child:
	// it gets a ChildReport of every settled turn.
	Parent *ParentLink `json:"parent,omitempty"`
}

// Seed carries an agent across Continue-As-New: everything the next run needs
// to go on exactly where the last one stopped. Sequence numbers continue.
type Seed struct {
	// State is the folded loop state; State.Len is the next event's seq. Its
	// inbox holds every pending message with its content.
	State eventlog.State `json:"state"`
	// Context is the model-facing conversation derived from the whole log.
	Context eventlog.ConversationSnapshot `json:"context"`
	// Selection is the committed model selection.
	Selection Selection `json:"selection"`
	// Pending was a requested model switch not yet committed, which only
	// seeds of the rules-1 generation carried.
	//
	// Deprecated: nothing writes or reads it, and no recorded history
	// carries it; it stays because the v0.1.0 API baseline (api/) holds it,
	// and goes with the next incompatible version.
	Pending *Selection `json:"pending,omitempty"`
	// Recent are the latest accepted message IDs, for duplicate detection.
	Recent []eventlog.MessageID `json:"recent,omitempty"`
	// RecentSums are the content digests of Recent, index for index (0
	// where an ID has none); seeds from before them carry none.
	RecentSums []uint64 `json:"recent_sums,omitempty"`
	// Inline are pending messages no payload carries (made by hooks).
	Inline []eventlog.MessageID `json:"inline,omitempty"`
	Made   int                  `json:"made,omitempty"`
	// PrevRun is the run the seed came from; Runs counts the chain's runs.
	PrevRun string `json:"prev_run"`
	Runs    int    `json:"runs"`
	// Journal is the previous run's log tail no command carried into its
	// history; the next run's start input carries it.
	Journal Journal `json:"journal,omitzero"`
	// Turn, when set, is the turn the previous run continued as new in the
	// middle of, between two steps: the next run goes on with it.
	Turn *OpenTurn `json:"turn,omitempty"`
	// Fork, when set, seeds the first run of a forked agent (loop.ForkSeed):
	// State and Context are another agent's log folded up to Fork.At, and
	// the run records Fork as its first event, at Fork.At+1. A run that
	// continued as new carries none.
	Fork *eventlog.SessionForked `json:"fork,omitempty"`
	// Rewind, when set, is where the chain's turns ended, so a run can
	// rewind to a turn an earlier run held (loop rules 6 on; rewind.go in
	// package loop). A seed without it rewinds to no turn before the run.
	Rewind *RewindMarks `json:"rewind,omitempty"`
}

// RewindMarks are the turn ends an agent can still be rewound to: Turns in
// order, and below Floor none, for the reason Lost gives.
type RewindMarks struct {
	Turns []TurnMark `json:"turns,omitempty"`
	Floor int        `json:"floor,omitempty"`
	Lost  string     `json:"lost,omitempty"`
}

// TurnMark is where turn Turn ended: the position of its turn/end, and
// the messages of the model's conversation then (what a rewind keeps).
type TurnMark struct {
	Turn int   `json:"t"`
	At   int64 `json:"at"`
	Keep int   `json:"n"`
}

// OpenTurn is what the loop holds of a turn between two steps, besides the
// folded state: how the last step ended and what the turn has said.
type OpenTurn struct {
	Retry     bool   `json:"retry,omitempty"`
	ToolCalls bool   `json:"tool_calls,omitempty"`
	Concluded bool   `json:"concluded,omitempty"`
	Failed    string `json:"failed,omitempty"`
	LastText  string `json:"last_text,omitempty"`
}

// AgentResult is what a disposed agent's workflow returns. Journal is the tail
// of the session log not yet recorded elsewhere in the run's history, so the
// log can be projected from history alone.
type AgentResult struct {
	LogLen  int64   `json:"log_len"`
	Journal Journal `json:"journal,omitzero"`
	// Usage is what the agent's own model calls spent over its life, its
	// children's not included: what its status query said last, read from
	// the closed agent's result with no worker replaying it.
	Usage eventlog.Usage `json:"usage,omitzero"`
}

// JournalMarker is recorded (as a side-effect marker) when the agent goes
// idle, carrying the log tail that no activity input carried.
type JournalMarker struct {
	Journal Journal `json:"tether_journal"`
}
