// AgentHandle drives one agent: messages, decisions, status, the log,
// cancel and dispose (docs/clients.md).
import {
  Client, QueryNotRegisteredError, WorkflowHandle, WorkflowNotFoundError, WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import {
  AlreadyIdleError, ClosedError, ContinuingError, DeliveryUnknownError, DisposedError, DuplicateMessageError, BusyError, InvalidEditError,
  InvalidRewindError, rejection,
} from './errors';
import { messageUpdateId, newMessageId, validateMessageId } from './message';
import { MAX_LOG_PAGE, Queries, Signals, Updates } from './names';
import {
  QUERY_MAX_PAUSE_MS, QUERY_MIN_PAUSE_MS, QUERY_NOT_READY_MS, SEND_DEADLINE_MS, SEND_MAX_PAUSE_MS, SEND_MIN_PAUSE_MS,
  queryNotReady, sleep, transientSend,
} from './retry';
import { TokenEvent, TokenOptions, followFeed } from './tokens';
import { logFromHistory } from './history';
import type {
  EventlogEnvelope, SignalsAck, SignalsAgentResult, SignalsDecided, SignalsDecision, SignalsLogPage, SignalsLogRequest,
  SignalsLiveFeed, SignalsMessage, SignalsRewind, SignalsRewound, SignalsSend, SignalsStatusView,
} from './schema';

/** A list a message joins: its own turn, or the next step boundary. */
export type List = 'next-turn' | 'next-step';

export interface SendOptions {
  /** The message's ID, its dedupe key; a fresh one when absent. */
  id?: string;
  /** Send as a signal: recorded even with no worker, but nobody answers it (seq -1). */
  signal?: boolean;
  /** Deliver at this time instead of now (a durable timer in the agent). */
  at?: Date;
  /** How long to keep sending before the delivery is unknown (default 60 s). */
  timeoutMs?: number;
}

export interface WaitOptions {
  /** Give up after this long (default: wait as long as it takes). */
  timeoutMs?: number;
  /** Also return when the open turn waits for a person (status.pending). */
  orBlocked?: boolean;
}

/** A node of an agent tree: the agent, its status and its children's. */
export interface TreeNode {
  id: string;
  status: SignalsStatusView;
  children: TreeNode[];
}

export interface ApproveOptions {
  /** The call's arguments as edited: one JSON object the tool's schema accepts. */
  args?: Record<string, unknown>;
}

/** The most bytes an approval's edited arguments may take (signals.MaxDecisionBytes). */
export const MAX_DECISION_BYTES = 64 << 10;

/**
 * checkEdit refuses, before anything is sent, edited arguments the agent
 * would refuse whatever the tool: anything but one JSON object, or one over
 * MAX_DECISION_BYTES (signals.Decision's own checks).
 */
function checkEdit(args: unknown): void {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw new InvalidEditError('tether.InvalidEdit', `edited arguments refused: arguments must be one JSON object, got ${JSON.stringify(args)}`, false);
  }
  const bytes = Buffer.byteLength(JSON.stringify(args), 'utf8');
  if (bytes > MAX_DECISION_BYTES) {
    throw new InvalidEditError('tether.InvalidEdit', `edited arguments refused: ${bytes} bytes, limit ${MAX_DECISION_BYTES}`, false);
  }
}

/** idle is the Go client's StatusView.Idle: no open turn and no due work. */
export function idle(st: SignalsStatusView): boolean {
  return !st.in_turn && !st.due;
}

export class AgentHandle {
  readonly id: string;
  /** The run the handle was made for; queries and updates go to the latest run. */
  readonly runId?: string;
  private readonly temporal: Client;

  constructor(temporal: Client, id: string, runId?: string) {
    this.temporal = temporal;
    this.id = id;
    this.runId = runId;
  }

  private workflow(runId?: string): WorkflowHandle {
    return this.temporal.workflow.getHandle(this.id, runId);
  }

  /** followup queues content for a turn of its own and wakes the agent. */
  followup(content: string, o: SendOptions = {}): Promise<SignalsAck> {
    return this.message(Updates.followup, content, 'next-turn', true, o);
  }

  /** steer queues content for the next step boundary and wakes the agent. */
  steer(content: string, o: SendOptions = {}): Promise<SignalsAck> {
    return this.message(Updates.steer, content, 'next-step', true, o);
  }

  /** inject queues content for the next step boundary without waking the agent. */
  inject(content: string, o: SendOptions = {}): Promise<SignalsAck> {
    return this.message(Updates.inject, content, 'next-step', false, o);
  }

  /** send routes content to list, waking the agent when wake is set. */
  async send(content: string, list: List, wake: boolean, o: SendOptions = {}): Promise<SignalsAck> {
    const id = o.id ?? newMessageId();
    validateMessageId(id);
    const s: SignalsSend = { id, content, list, wake };
    if (o.at !== undefined) s.at = o.at.toISOString();
    if (o.signal) {
      await this.signal(Signals.send, s);
      return { message_id: id, seq: -1 };
    }
    return this.deliverMessage(Updates.send, s, o.timeoutMs);
  }

  private async message(name: string, content: string, list: List, wake: boolean, o: SendOptions): Promise<SignalsAck> {
    if (o.at !== undefined) return this.send(content, list, wake, o);
    const m: SignalsMessage = { id: o.id ?? newMessageId(), content };
    validateMessageId(m.id);
    if (o.signal) {
      await this.signal(name, m);
      return { message_id: m.id, seq: -1 };
    }
    return this.deliverMessage(name, m, o.timeoutMs);
  }

  /**
   * deliverMessage sends a message as an update. The workflow answers its
   * inbox position alone ({seq}); the message ID is the one sent.
   */
  private async deliverMessage(name: string, m: SignalsMessage, timeoutMs?: number): Promise<SignalsAck> {
    const ack = await this.deliver<Partial<SignalsAck>>(name, messageUpdateId(m.id, m.content), m, timeoutMs);
    return { message_id: m.id, seq: ack?.seq ?? -1 };
  }

  /**
   * deliver sends an update under one ID until it is known delivered or
   * refused, or the deadline ends (DeliveryUnknownError). It sends again
   * after a transient failure, tether.Busy (after at least 1 s) and
   * tether.Continuing (the next run of the chain answers). undefined: one of
   * its own resends came back tether.DuplicateMessage, so an earlier attempt
   * delivered it and its answer was lost.
   */
  private async deliver<T>(name: string, updateId: string, arg: unknown, timeoutMs = SEND_DEADLINE_MS): Promise<T | undefined> {
    const deadline = Date.now() + timeoutMs;
    let resent = false;
    for (let pause = SEND_MIN_PAUSE_MS; ; pause = Math.min(2 * pause, SEND_MAX_PAUSE_MS)) {
      let wait = pause;
      try {
        return await this.workflow().executeUpdate<T, [unknown]>(name, { args: [arg], updateId });
      } catch (err) {
        const rej = rejection(err);
        if (rej instanceof DuplicateMessageError && resent) return undefined;
        if (rej instanceof BusyError) wait = Math.max(pause, rej.retryAfterMs);
        else if (rej instanceof ContinuingError) wait = pause; // the next run answers
        else if (rej !== undefined) throw rej;
        else if (!transientSend(err) && !(err instanceof WorkflowUpdateRPCTimeoutOrCancelledError)) {
          throw await this.mapErr(err);
        }
        if (Date.now() + wait > deadline) throw new DeliveryUnknownError(updateId.split('#')[0], { cause: err });
      }
      await sleep(wait);
      resent = true;
    }
  }

  private async signal(name: string, arg: unknown): Promise<void> {
    try {
      await this.workflow().signal(name, arg);
    } catch (err) {
      throw await this.mapErr(err);
    }
  }

  /**
   * query asks a run (the latest when runId is absent), again with backoff
   * for up to 15 s while the run cannot answer yet.
   */
  private async query<T>(name: string, runId?: string, ...args: unknown[]): Promise<T> {
    const deadline = Date.now() + QUERY_NOT_READY_MS;
    for (let pause = QUERY_MIN_PAUSE_MS; ; pause = Math.min(2 * pause, QUERY_MAX_PAUSE_MS)) {
      try {
        return await this.workflow(runId).query<T, unknown[]>(name, ...args);
      } catch (err) {
        if (!queryNotReady(err, name) || Date.now() + pause > deadline) throw await this.mapErr(err);
        const closed = err instanceof QueryNotRegisteredError ? await this.closedRun(runId) : undefined;
        if (closed !== undefined) throw closed; // it will never register its handlers
      }
      await sleep(pause);
    }
  }

  /** closedRun is a ClosedError when the run has closed, else undefined. */
  private async closedRun(runId?: string): Promise<ClosedError | undefined> {
    try {
      const d = await this.workflow(runId).describe();
      return d.status.name === 'RUNNING' ? undefined : new ClosedError(this.id, d.status.name);
    } catch {
      return undefined;
    }
  }

  /** mapErr turns a missing or closed workflow into ClosedError; others pass. */
  private async mapErr(err: unknown): Promise<unknown> {
    if (!(err instanceof WorkflowNotFoundError)) return err;
    try {
      const d = await this.workflow().describe();
      if (d.status.name !== 'RUNNING') return new ClosedError(this.id, d.status.name, { cause: err });
    } catch {
      // not found at all: the original error says so
    }
    return err;
  }

  /** status reads idle/running, turn, step, the inbox lists and what waits. */
  status(): Promise<SignalsStatusView> {
    return this.query<SignalsStatusView>(Queries.status);
  }

  /**
   * waitIdle returns once the agent has no open turn and no due work, or is
   * disposed, asking the status query with backoff: it writes nothing to
   * the agent's history.
   */
  async waitIdle(o: WaitOptions = {}): Promise<SignalsStatusView> {
    const deadline = o.timeoutMs === undefined ? Infinity : Date.now() + o.timeoutMs;
    for (let pause = QUERY_MIN_PAUSE_MS; ; pause = Math.min(2 * pause, QUERY_MAX_PAUSE_MS)) {
      const st = await this.status();
      if (idle(st) || st.disposed || (o.orBlocked && (st.pending?.length ?? 0) > 0)) return st;
      if (Date.now() + pause > deadline) throw new Error(`agent ${this.id} is not idle after ${o.timeoutMs} ms`);
      await sleep(pause);
    }
  }

  /**
   * waitIdleUpdate is the push alternative: the wait-idle update, answered
   * when the agent goes idle. An agent already idle or disposed answers its
   * status at once.
   */
  async waitIdleUpdate(): Promise<SignalsStatusView> {
    try {
      const st = await this.deliver<SignalsStatusView>(Updates.waitIdle, `wait-${newMessageId()}`, {});
      return st ?? this.status();
    } catch (err) {
      if (err instanceof AlreadyIdleError || err instanceof DisposedError) return this.status();
      throw err;
    }
  }

  /** logPage reads one page of a run's log (the latest run when runId is absent). */
  logPage(req: SignalsLogRequest, runId?: string): Promise<SignalsLogPage> {
    return this.query<SignalsLogPage>(Queries.log, runId, req);
  }

  /**
   * log reads the session log from `from` to its end, page by page, across
   * the agent's chain of runs: a run continued as new answers from its base
   * and names the run before it (prev_run), which holds what precedes.
   */
  log(from = 0): Promise<EventlogEnvelope[]> {
    return this.logOf(undefined, from);
  }

  /**
   * logFromHistory reads the session log from `from` on out of the
   * histories of the agent's chain of runs, with no worker: what the Go
   * client and `starter log` do when no worker answers the log query. It
   * is the log as far as the workflow tasks completed so far wrote it; a
   * closed agent's is whole. Payloads decode with the client's data
   * converter (give it the TetherCodec when they are encrypted).
   */
  async logFromHistory(from = 0): Promise<EventlogEnvelope[]> {
    try {
      return (await logFromHistory(this.temporal, this.id)).filter((e) => e.seq >= from);
    } catch (err) {
      throw await this.mapErr(err);
    }
  }

  private async logOf(runId: string | undefined, from: number): Promise<EventlogEnvelope[]> {
    const out: EventlogEnvelope[] = [];
    for (;;) {
      const page = await this.logPage({ from, limit: MAX_LOG_PAGE }, runId);
      const base = page.base ?? 0;
      if (from < base && page.prev_run) out.push(...(await this.logOf(page.prev_run, from)));
      const events = page.events ?? [];
      out.push(...events);
      if (page.next >= page.len || events.length === 0) return out;
      from = page.next;
    }
  }

  /**
   * tokens yields the live chunks of the agent's model calls as they
   * stream, call after call, until o.signal aborts or the caller stops: by
   * default from the turn in flight (or the next one) on, each call's
   * chunks from its first. It asks the agent where the worker holding it
   * streams (the feed query, never written to history) and reads that feed
   * as Server-Sent Events, following it when it moves. A worker that
   * serves no live streams yields nothing; one refusing for load ends the
   * iteration with a StreamError (429, 503). A "reset" says to discard
   * the attempt's partial output; "done" ends a call, whose settled
   * message is in the log.
   */
  tokens(o: TokenOptions = {}): AsyncGenerator<TokenEvent> {
    return followFeed(() => this.query<SignalsLiveFeed>(Queries.feed), o);
  }

  /** cancel aborts the active turn; unless keepInbox, pending messages are discarded. */
  cancel(cause = '', keepInbox = false): Promise<void> {
    return this.signal(Signals.cancel, { cause, keep_inbox: keepInbox });
  }

  /** dispose ends the agent and waits for its workflow to complete. */
  async dispose(cause = ''): Promise<SignalsAgentResult> {
    await this.signal(Signals.dispose, { cause });
    return this.result();
  }

  /** result waits for the agent's end (it follows Continue-As-New). */
  async result(): Promise<SignalsAgentResult> {
    try {
      return await this.workflow().result();
    } catch (err) {
      throw await this.mapErr(err);
    }
  }

  /**
   * approve lets a tool call that waits for approval run. With o.args the
   * call runs with those arguments instead of the model's (one JSON object,
   * the update's Decision.args): the agent checks them against the tool's
   * schema and its approval policy (NoEdit) and refuses them with
   * InvalidEditError, the call still waiting; the log's decision/made keeps
   * them beside the original, and the model sees its call as made.
   */
  async approve(callId: string, decider = '', reason = '', o: ApproveOptions = {}): Promise<SignalsDecided> {
    if (o.args === undefined) return this.decide(Updates.approve, callId, decider, reason);
    checkEdit(o.args);
    return this.decide(Updates.approve, callId, decider, reason, o.args);
  }

  /** deny refuses a tool call that waits for approval; the model reads the reason. */
  deny(callId: string, decider = '', reason = ''): Promise<SignalsDecided> {
    return this.decide(Updates.deny, callId, decider, reason);
  }

  /** answer answers an ask_human question; the answer is the call's result. */
  answer(callId: string, decider = '', text = ''): Promise<SignalsDecided> {
    return this.decide(Updates.answer, callId, decider, text);
  }

  private async decide(name: string, callId: string, decider: string, text: string, args?: Record<string, unknown>): Promise<SignalsDecided> {
    const d: SignalsDecision = { id: newMessageId(), call_id: callId, decider, text };
    if (args !== undefined) d.args = args;
    const out = await this.deliver<SignalsDecided>(name, d.id, d);
    return out ?? { call_id: callId, seq: -1 };
  }

  /**
   * rewind brings the idle agent back to the end of turn toTurn (0: before
   * its first turn), as Go's Handle.Rewind does: from its next turn on the
   * model sees the conversation that turn ended with, and the turns after
   * it stay in the log, rewound past (session/rewound, naming `by`). It
   * answers where the agent stands: `seq` is the session/rewound event's
   * position, -1 when the agent already stood there and nothing was
   * recorded. Refused with nothing recorded: InvalidRewindError for a turn
   * that has not ended, a turn in progress or a run under older rules (a
   * negative or fractional turn before anything is sent), RewindLostError
   * for a turn compacted, pruned or rewound past since, which a fork at
   * that turn still reaches.
   */
  async rewind(toTurn: number, by = ''): Promise<SignalsRewound> {
    if (!Number.isSafeInteger(toTurn) || toTurn < 0) {
      throw new InvalidRewindError('tether.InvalidRewind', `turn ${toTurn}: turns count from 0, the agent's start`, false);
    }
    const r: SignalsRewind = { to_turn: toTurn };
    if (by !== '') r.by = by;
    const id = `rewind-${newMessageId()}`;
    const out = await this.deliver<SignalsRewound>(Updates.rewind, id, r);
    if (out === undefined) throw new DeliveryUnknownError(id); // a rewind's resend is answered by Temporal, never refused as a duplicate
    return out;
  }

  /** tree reads the agent's status and, depth first, its children's. */
  async tree(): Promise<TreeNode> {
    const status = await this.status();
    const children: TreeNode[] = [];
    for (const c of status.children ?? []) {
      children.push(await new AgentHandle(this.temporal, c.id).tree());
    }
    return { id: this.id, status, children };
  }
}
