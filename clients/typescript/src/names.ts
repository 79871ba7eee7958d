// Durable names of Tether's wire contract, as schema/tether.schema.json's
// x-tether lists them. test/schema.test.ts fails when they differ.

/** The agent workflow's type. */
export const AGENT_WORKFLOW = 'tether.Agent';

/** The worker's default task queue. */
export const DEFAULT_TASK_QUEUE = 'tether';

/** Every message operation is both a signal and an update of this name. */
export const MessageOps = {
  followup: 'followup',
  steer: 'steer',
  inject: 'inject',
  send: 'send',
} as const;

export const Signals = {
  ...MessageOps,
  cancel: 'cancel',
  childReport: 'child-report',
  dispose: 'dispose',
  selectModel: 'select-model',
} as const;

export const Updates = {
  ...MessageOps,
  answer: 'answer',
  approve: 'approve',
  deny: 'deny',
  maintain: 'maintain',
  rewind: 'rewind',
  selectModel: 'select-model',
  spawn: 'spawn',
  waitIdle: 'wait-idle',
} as const;

export const Queries = {
  feed: 'feed',
  log: 'log',
  status: 'status',
} as const;

/** The most events one log query answers. */
export const MAX_LOG_PAGE = 500;

/** Tether's search attributes (x-tether.searchAttributes), which a namespace must register. */
export const Attrs = {
  status: 'TetherStatus',
  model: 'TetherModel',
  parent: 'TetherParent',
  turn: 'TetherTurn',
  waiting: 'TetherWaiting',
  waitUntil: 'TetherWaitUntil',
  forkOf: 'TetherForkOf',
} as const;

/** modelLabel is an agent's provider/model label ("default" for either left out), signals.ModelLabel. */
export function modelLabel(s: { provider?: string; model?: string }): string {
  return `${s.provider || 'default'}/${s.model || 'default'}`;
}
