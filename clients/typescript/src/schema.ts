// Generated from schema/tether.schema.json by `npm run generate`; do not edit.
/* eslint-disable */

/**
 * A duration: an integer number of nanoseconds (the form Tether writes) or a Go duration string such as "2s" or "1h30m".
 *
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "Duration".
 */
export type Duration = number | string;

/**
 * Generated from Tether's Go types by internal/schemagen; do not edit. x-tether names the workflow, task queue, signals, updates, queries, search attributes, session events and rejections; $defs holds their payloads.
 */
export interface TetherWireContract {
  [k: string]: unknown;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.AgentDisposing".
 */
export interface EventlogAgentDisposing {
  cause: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.AssistantAttempt".
 */
export interface EventlogAssistantAttempt {
  failure: EventlogFailure;
  provider?: string;
  model?: string;
  stream?: null | EventlogStreamTiming;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.Failure".
 */
export interface EventlogFailure {
  kind: string;
  message: string;
  status_code?: number;
  /**
   * A duration in nanoseconds.
   */
  retry_after?: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.StreamTiming".
 */
export interface EventlogStreamTiming {
  first_ms?: number;
  ms: number;
  chunks?: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.AssistantMessage".
 */
export interface EventlogAssistantMessage {
  text?: string;
  tool_calls?: null | EventlogToolCallRequest[];
  usage: EventlogUsage;
  finish_reason: string;
  provider?: string;
  model?: string;
  default_model?: string;
  stream?: null | EventlogStreamTiming;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.ToolCallRequest".
 */
export interface EventlogToolCallRequest {
  id: string;
  name: string;
  /**
   * Any JSON value, kept as it was sent.
   */
  arguments: {
    [k: string]: unknown;
  };
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.Usage".
 */
export interface EventlogUsage {
  input_tokens: number;
  output_tokens: number;
  cached_tokens?: number;
  cache_write_tokens?: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.Child".
 */
export interface EventlogChild {
  id: string;
  call_id?: string;
  mode: string;
  list?: string;
  budget?: EventlogChildBudget;
  spent?: EventlogUsage;
  settled?: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.ChildBudget".
 */
export interface EventlogChildBudget {
  max_tokens?: number;
  max_cost?: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.ChildEnded".
 */
export interface EventlogChildEnded {
  child_id: string;
  status: string;
  usage?: EventlogUsage;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.ChildSettled".
 */
export interface EventlogChildSettled {
  child_id: string;
  turn: number;
  reason: string;
  error?: string;
  text?: string;
  usage?: EventlogUsage;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.ChildStarted".
 */
export interface EventlogChildStarted {
  child_id: string;
  call_id?: string;
  mode: string;
  list?: string;
  budget?: EventlogChildBudget;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.ContextCompacted".
 */
export interface EventlogContextCompacted {
  text?: string;
  keep: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.ContextPruned".
 */
export interface EventlogContextPruned {
  call_ids: null | string[];
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.ConversationSnapshot".
 */
export interface EventlogConversationSnapshot {
  system?: string;
  messages?: null | EventlogMessage[];
  position: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.Message".
 */
export interface EventlogMessage {
  role: string;
  content?: string;
  tool_calls?: null | EventlogToolCallRequest[];
  tool_call_id?: string;
  name?: string;
  is_error?: boolean;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.DecisionMade".
 */
export interface EventlogDecisionMade {
  call_id: string;
  approved: boolean;
  decider?: string;
  text?: string;
  /**
   * Any JSON value, kept as it was sent.
   */
  args?: {
    [k: string]: unknown;
  };
  /**
   * Any JSON value, kept as it was sent.
   */
  original?: {
    [k: string]: unknown;
  };
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.DecisionRequested".
 */
export interface EventlogDecisionRequested {
  call_id: string;
  name: string;
  kind: string;
  since: string;
  deadline?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.Envelope".
 */
export interface EventlogEnvelope {
  seq: number;
  at: string;
  type: string;
  ref?: string;
  /**
   * Any JSON value, kept as it was sent.
   */
  data?: {
    [k: string]: unknown;
  };
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.Inbox".
 */
export interface EventlogInbox {
  next_turn?: null | EventlogPending[];
  next_step?: null | EventlogPending[];
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.Pending".
 */
export interface EventlogPending {
  id: string;
  content: string;
  wake: boolean;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.InboxClaimed".
 */
export interface EventlogInboxClaimed {
  message_id: string;
  list: string;
  turn: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.InboxDiscarded".
 */
export interface EventlogInboxDiscarded {
  message_id: string;
  list: string;
  outcome: string;
  cause?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.InboxInserted".
 */
export interface EventlogInboxInserted {
  message_id?: string;
  list: string;
  content?: string;
  wake: boolean;
  from?: null | EventlogInitiator;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.Initiator".
 */
export interface EventlogInitiator {
  kind?: string;
  id?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.MCPTool".
 */
export interface EventlogMCPTool {
  name: string;
  description?: string;
  /**
   * Any JSON value, kept as it was sent.
   */
  input_schema?: {
    [k: string]: unknown;
  };
  read_only?: boolean;
  destructive?: null | boolean;
  idempotent?: boolean;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.MaintenanceDone".
 */
export interface EventlogMaintenanceDone {
  task: string;
  before: number;
  after: number;
  error?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.MaintenanceQueued".
 */
export interface EventlogMaintenanceQueued {
  task: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.MessageScheduled".
 */
export interface EventlogMessageScheduled {
  message_id?: string;
  list: string;
  content?: string;
  wake: boolean;
  at: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.ModelSelected".
 */
export interface EventlogModelSelected {
  provider?: string;
  model?: string;
  effort?: string;
  refused?: string;
  resolved?: boolean;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.PendingDecision".
 */
export interface EventlogPendingDecision {
  call_id: string;
  name: string;
  kind: string;
  since: string;
  deadline?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.RequestContext".
 */
export interface EventlogRequestContext {
  messages: number;
  tokens: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.RequestHeader".
 */
export interface EventlogRequestHeader {
  provider?: string;
  model?: string;
  effort?: string;
  max_tokens?: number;
  tools?: null | string[];
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.RuntimeContext".
 */
export interface EventlogRuntimeContext {
  content?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.Scheduled".
 */
export interface EventlogScheduled {
  id: string;
  list: string;
  content: string;
  wake?: boolean;
  at: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.Selection".
 */
export interface EventlogSelection {
  provider?: string;
  model?: string;
  effort?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.ServerTools".
 */
export interface EventlogServerTools {
  server: string;
  digest?: string;
  unchanged?: boolean;
  tools?: null | EventlogMCPTool[];
  error?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.SessionForked".
 */
export interface EventlogSessionForked {
  source: string;
  run?: string;
  at: number;
  replaced_last?: string;
  replaced?: string;
  dropped?: null | string[];
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.SessionRewound".
 */
export interface EventlogSessionRewound {
  to_turn: number;
  at: number;
  past: number;
  keep: number;
  forget?: boolean;
  by?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.SessionStarted".
 */
export interface EventlogSessionStarted {
  hooks: null | string[];
  errors?: null | string[];
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.State".
 */
export interface EventlogState {
  len: number;
  status: string;
  turn: number;
  in_turn: boolean;
  step: number;
  in_step: boolean;
  inbox: EventlogInbox;
  system_prompt?: string;
  runtime_context?: string;
  open_calls?: null | EventlogToolCallRequest[];
  usage: EventlogUsage;
  selection?: EventlogSelection;
  canceling?: string;
  disposing?: boolean;
  dispose_cause?: string;
  maintenance?: null | string[];
  retry_chain?: number;
  header?: null | EventlogRequestHeader;
  children?: null | EventlogChild[];
  pending?: null | EventlogPendingDecision[];
  waits?: null | EventlogWait[];
  scheduled?: null | EventlogScheduled[];
  session_started?: boolean;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.Wait".
 */
export interface EventlogWait {
  call_id: string;
  until: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.StatusChanged".
 */
export interface EventlogStatusChanged {
  status: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.StepEnd".
 */
export interface EventlogStepEnd {
  turn: number;
  step: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.StepStart".
 */
export interface EventlogStepStart {
  turn: number;
  step: number;
  provider?: string;
  model?: string;
  effort?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.SystemMessage".
 */
export interface EventlogSystemMessage {
  content?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.ToolCall".
 */
export interface EventlogToolCall {
  call_id: string;
  name: string;
  idempotency_key: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.ToolResult".
 */
export interface EventlogToolResult {
  call_id: string;
  name: string;
  content: string;
  is_error?: boolean;
  concludes_turn?: boolean;
  outcome?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.ToolsListed".
 */
export interface EventlogToolsListed {
  servers: null | EventlogServerTools[];
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.TurnCanceling".
 */
export interface EventlogTurnCanceling {
  turn: number;
  cause: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.TurnEnd".
 */
export interface EventlogTurnEnd {
  turn: number;
  reason: string;
  error?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.TurnStart".
 */
export interface EventlogTurnStart {
  turn: number;
  retry_of?: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.UserMessage".
 */
export interface EventlogUserMessage {
  message_id?: string;
  content?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "eventlog.WaitStarted".
 */
export interface EventlogWaitStarted {
  call_id: string;
  until: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Ack".
 */
export interface SignalsAck {
  message_id: string;
  seq: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.AgentInput".
 */
export interface SignalsAgentInput {
  options: SignalsAgentOptions;
  first?: null | SignalsMessage;
  seed?: null | SignalsSeed;
  parent?: null | SignalsParentLink;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.AgentOptions".
 */
export interface SignalsAgentOptions {
  provider?: string;
  model?: string;
  system_prompt?: string;
  tools?: null | string[];
  max_tokens?: number;
  max_steps?: number;
  parent?: string;
  effort?: string;
  prompt?: null | SignalsPrompt;
  hooks: null | string[];
  hook_config?: {
    /**
     * Any JSON value, kept as it was sent.
     */
    [k: string]: {
      [k: string]: unknown;
    };
  };
  retry?: null | SignalsRetryPolicy;
  max_parallel_tools?: number;
  budget?: null | SignalsBudget;
  compaction?: null | SignalsCompaction;
  approval?: null | SignalsApprovalPolicy;
  wait?: null | SignalsWaitPolicy;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Prompt".
 */
export interface SignalsPrompt {
  sections?: null | SignalsSection[];
  variables?: {
    [k: string]: string;
  };
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Section".
 */
export interface SignalsSection {
  name: string;
  text: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.RetryPolicy".
 */
export interface SignalsRetryPolicy {
  max_retries?: number;
  initial?: Duration;
  max?: Duration;
  multiplier?: number;
  kinds?: null | string[];
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Budget".
 */
export interface SignalsBudget {
  max_tokens?: number;
  max_cost?: number;
  prices?: SignalsPrices;
  max_turns?: number;
  max_steps?: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Prices".
 */
export interface SignalsPrices {
  input?: number;
  output?: number;
  cached?: number;
  cache_write?: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Compaction".
 */
export interface SignalsCompaction {
  window?: number;
  threshold?: number;
  keep_recent?: number;
  prune_over?: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.ApprovalPolicy".
 */
export interface SignalsApprovalPolicy {
  tools?: null | string[];
  when?: null | SignalsApprovalRule[];
  timeout?: Duration;
  on_timeout?: string;
  answer_timeout?: Duration;
  no_edit?: null | string[];
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.ApprovalRule".
 */
export interface SignalsApprovalRule {
  tool: string;
  path?: string;
  /**
   * Any JSON value, kept as it was sent.
   */
  equals?: {
    [k: string]: unknown;
  };
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.WaitPolicy".
 */
export interface SignalsWaitPolicy {
  max?: Duration;
  interruptible?: boolean;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Message".
 */
export interface SignalsMessage {
  id: string;
  content: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Seed".
 */
export interface SignalsSeed {
  state: EventlogState;
  context: EventlogConversationSnapshot;
  selection: EventlogSelection;
  pending?: null | EventlogSelection;
  recent?: null | string[];
  recent_sums?: null | number[];
  inline?: null | string[];
  made?: number;
  prev_run: string;
  runs: number;
  journal?: SignalsJournal;
  turn?: null | SignalsOpenTurn;
  fork?: null | EventlogSessionForked;
  rewind?: null | SignalsRewindMarks;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Journal".
 */
export interface SignalsJournal {
  from: number;
  at: number;
  e: null | [unknown, unknown] | [unknown, unknown, unknown] | [unknown, unknown, unknown, unknown][];
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.OpenTurn".
 */
export interface SignalsOpenTurn {
  retry?: boolean;
  tool_calls?: boolean;
  concluded?: boolean;
  failed?: string;
  last_text?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.RewindMarks".
 */
export interface SignalsRewindMarks {
  turns?: null | SignalsTurnMark[];
  floor?: number;
  lost?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.TurnMark".
 */
export interface SignalsTurnMark {
  t: number;
  at: number;
  n: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.ParentLink".
 */
export interface SignalsParentLink {
  id: string;
  depth: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.AgentResult".
 */
export interface SignalsAgentResult {
  log_len: number;
  journal?: SignalsJournal;
  usage?: EventlogUsage;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.CallRef".
 */
export interface SignalsCallRef {
  activity: string;
  attempt: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Cancel".
 */
export interface SignalsCancel {
  cause?: string;
  keep_inbox?: boolean;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.ChildReport".
 */
export interface SignalsChildReport {
  id: string;
  child: string;
  turn?: number;
  reason?: string;
  error?: string;
  text?: string;
  spent?: EventlogUsage;
  ended?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.ChildView".
 */
export interface SignalsChildView {
  id: string;
  mode: string;
  settled?: number;
  spent?: EventlogUsage;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Chunk".
 */
export interface SignalsChunk {
  text?: string;
  reasoning?: string;
  tool_index?: number;
  tool_id?: string;
  tool_name?: string;
  arguments?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Decided".
 */
export interface SignalsDecided {
  call_id: string;
  seq: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Decision".
 */
export interface SignalsDecision {
  id: string;
  call_id: string;
  decider?: string;
  text?: string;
  /**
   * Any JSON value, kept as it was sent.
   */
  args?: {
    [k: string]: unknown;
  };
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Dispose".
 */
export interface SignalsDispose {
  cause?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.LiveFeed".
 */
export interface SignalsLiveFeed {
  url: string;
  token: string;
  turn: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.LogPage".
 */
export interface SignalsLogPage {
  events: null | EventlogEnvelope[];
  next: number;
  len: number;
  base?: number;
  prev_run?: string;
  context?: null | EventlogConversationSnapshot;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.LogRequest".
 */
export interface SignalsLogRequest {
  from: number;
  to?: number;
  limit?: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Maintain".
 */
export interface SignalsMaintain {
  task: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Maintained".
 */
export interface SignalsMaintained {
  task: string;
  before: number;
  after: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.PendingView".
 */
export interface SignalsPendingView {
  call_id: string;
  name: string;
  kind: string;
  since: string;
  deadline?: string;
  arguments?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Rewind".
 */
export interface SignalsRewind {
  to_turn: number;
  by?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Rewound".
 */
export interface SignalsRewound {
  turn: number;
  past: number;
  keep: number;
  seq: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.SelectionAck".
 */
export interface SignalsSelectionAck {
  selection: EventlogSelection;
  seq: number;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Send".
 */
export interface SignalsSend {
  id: string;
  content: string;
  list: string;
  wake: boolean;
  at?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Spawn".
 */
export interface SignalsSpawn {
  task: string;
  system_prompt?: string;
  profile?: string;
  provider?: string;
  model?: string;
  tools?: null | string[];
  budget?: number;
  mode?: string;
  list?: string;
  id: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.SpawnArgs".
 */
export interface SignalsSpawnArgs {
  task: string;
  system_prompt?: string;
  profile?: string;
  provider?: string;
  model?: string;
  tools?: null | string[];
  budget?: number;
  mode?: string;
  list?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.Spawned".
 */
export interface SignalsSpawned {
  child_id: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.StatusView".
 */
export interface SignalsStatusView {
  status: string;
  turn: number;
  step: number;
  in_turn: boolean;
  due?: boolean;
  next_turn: null | EventlogPending[];
  next_step: null | EventlogPending[];
  next_turn_len?: number;
  next_step_len?: number;
  log_len: number;
  disposed: boolean;
  runs?: number;
  usage?: EventlogUsage;
  pending?: null | SignalsPendingView[];
  waits?: null | EventlogWait[];
  children?: null | SignalsChildView[];
  scheduled?: null | EventlogScheduled[];
  scheduled_len?: number;
  next_at?: string;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.StreamEvent".
 */
export interface SignalsStreamEvent {
  seq: number;
  kind: string;
  chunk?: null | SignalsChunk;
  error?: string;
  call?: null | SignalsCallRef;
}
/**
 * This interface was referenced by `TetherWireContract`'s JSON-Schema
 * via the `definition` "signals.WaitIdle".
 */
export interface SignalsWaitIdle {}
