// The session log from history, with no worker (docs/clients.md,
// "Reading the log, open or closed"): the Go package projection in
// TypeScript. The loop journals every session event into history once, in
// its stripped form (activity inputs, side-effect markers, the workflow
// result, the next run's seed); content stays where it first entered
// history (the start input, a signal or update, an activity's result) and
// each journaled event's ref names it. A turn that ends the plainest way
// (signals.IdleTail) is journaled nowhere: its events are derived from the
// workflow task that ended it.
import type { Client } from '@temporalio/client';
import type { LoadedDataConverter, Payload } from '@temporalio/common';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { temporal } from '@temporalio/proto';
import { EventShapes } from './events';
import { Attrs, Signals, Updates } from './names';
import type { EventlogEnvelope, SignalsAgentInput, SignalsAgentResult } from './schema';
import { parseModelActivityId } from './tokens';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Json = unknown;
const EventType = temporal.api.enums.v1.EventType;

/** A history that is not a complete Tether log, or a payload that does not decode. */
export class ProjectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProjectionError';
  }
}

// The journal's short tags for event types (signals.journalCodes); readers
// accept the full type names too.
const journalTypes: Readonly<Record<string, string>> = {
  ii: 'inbox/inserted', ic: 'inbox/claimed', id: 'inbox/discarded', ts: 'turn/start', te: 'turn/end', ss: 'step/start',
  se: 'step/end', sm: 'system/message', um: 'user/message', rc: 'runtime/context', am: 'assistant/message',
  aa: 'assistant/attempt', tc: 'tool/call', tr: 'tool/result', st: 'status', cp: 'context/pruned', cc: 'context/compacted',
  mo: 'model/selected', tx: 'turn/canceling', dx: 'agent/disposing', mq: 'maintenance/queued', md: 'maintenance/done',
  rh: 'request/header', rx: 'request/context', cs: 'child/started', cx: 'child/settled', ce: 'child/ended',
  dq: 'decision/requested', dm: 'decision/made', ws: 'wait/started', tl: 'tools/listed', is: 'inbox/scheduled',
  sx: 'session/started', sf: 'session/forked', sr: 'session/rewound',
};

// The events whose journal data is an array of values in this order
// (signals.journalFields).
const journalFields: Readonly<Record<string, readonly string[]>> = {
  'inbox/inserted': ['list', 'wake', 'message_id', 'content'],
  'inbox/claimed': ['message_id', 'list', 'turn'],
  'inbox/discarded': ['message_id', 'list', 'outcome', 'cause'],
  'turn/start': ['turn', 'retry_of'],
  'turn/end': ['turn', 'reason', 'error'],
  'step/start': ['turn', 'step', 'provider', 'model', 'effort'],
  'step/end': ['turn', 'step'],
  status: ['status'],
  'request/header': ['provider', 'model', 'effort', 'max_tokens', 'tools'],
  'request/context': ['messages', 'tokens'],
};

// Which field a ref's content fills, by event type (eventlog.Restore).
const contentFields: Readonly<Record<string, { content: string; id?: boolean }>> = {
  'inbox/inserted': { content: 'content', id: true },
  'inbox/scheduled': { content: 'content', id: true },
  'user/message': { content: 'content', id: true },
  'system/message': { content: 'content' },
  'child/settled': { content: 'text' },
  'decision/made': { content: 'text' },
  'tool/result': { content: 'content' },
};

function empty(v: Json): boolean {
  return v === null || v === undefined || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0);
}

/**
 * canonical is data as Go's encoding of the event writes it: its own
 * fields only, in order, an absent required field as its zero value and an
 * empty optional one left out. A type this client does not know is kept
 * as it is.
 */
export function canonical(type: string, data: Json): Json {
  const shape = EventShapes[type];
  if (shape === undefined || data === null || typeof data !== 'object' || Array.isArray(data)) return data;
  const obj = data as Record<string, Json>;
  const out: Record<string, Json> = {};
  for (const f of shape.fields) {
    const required = Object.prototype.hasOwnProperty.call(shape.zero, f);
    const v = obj[f];
    if (v === undefined) {
      if (required) out[f] = shape.zero[f];
      continue;
    }
    if (!required && (empty(v) || (shape.maps.includes(f) && typeof v === 'object' && Object.keys(v as object).length === 0))) continue;
    out[f] = v;
  }
  return out;
}

/** An envelope while it is folded: data undefined when the journal stripped it. */
interface Env {
  seq: number;
  at: number; // unix ms
  type: string;
  ref?: string;
  data?: Json;
}

/** unpackData is a journal entry's data in the event's own form (signals.unpackData). */
function unpackData(type: string, data: Json): Json {
  const names = journalFields[type];
  if (names === undefined) return data;
  if (Array.isArray(data)) {
    if (data.length > names.length) throw new ProjectionError(`journal entry ${type}: data ${JSON.stringify(data)} is not in its field order`);
    const obj: Record<string, Json> = {};
    data.forEach((v, i) => {
      if (v !== null) obj[names[i]] = v;
    });
    return canonical(type, obj);
  }
  if (data !== null && typeof data === 'object') return canonical(type, data);
  return data;
}

/** envelopes unpacks a signals.Journal ({from, at, e}). */
function envelopes(j: unknown): Env[] {
  if (j == null) return [];
  const { from, at, e } = j as { from?: number; at?: number; e?: unknown[] | null };
  if (!Array.isArray(e ?? [])) throw new ProjectionError('malformed journal: e is not an array');
  return (e ?? []).map((entry, i) => {
    if (!Array.isArray(entry) || entry.length < 2 || entry.length > 4) throw new ProjectionError(`malformed journal entry ${JSON.stringify(entry)}`);
    const [tag, delta, ref, data] = entry as [string, number, string?, Json?];
    const type = journalTypes[tag] ?? tag;
    const env: Env = { seq: (from ?? 0) + i, at: (at ?? 0) + delta, type };
    if (ref) env.ref = ref;
    if (entry.length > 3 && data !== null && data !== undefined) env.data = unpackData(type, data);
    return env;
  });
}

/** idleTail is signals.IdleTail: the four events of a turn that ended the plainest way. */
function idleTail(from: number, at: number, model: string): Env[] {
  const ids = parseModelActivityId(model);
  if (ids === undefined) throw new ProjectionError(`idle tail: ${JSON.stringify(model)} is not a model activity ID`);
  return [
    { seq: from, at, type: 'assistant/message', ref: `act:${model}` },
    { seq: from + 1, at, type: 'step/end', data: canonical('step/end', { turn: ids.turn, step: ids.step }) },
    { seq: from + 2, at, type: 'turn/end', data: canonical('turn/end', { turn: ids.turn, reason: 'completed' }) },
    { seq: from + 3, at, type: 'status', data: canonical('status', { status: 'idle' }) },
  ];
}

interface Task {
  open: boolean;
  at: number;
  model: string;
  idle: boolean;
  bare: boolean;
  journaled: boolean;
}

const noTask = (): Task => ({ open: false, at: 0, model: '', idle: false, bare: false, journaled: false });

// The events a workflow task's commands write right after its completion.
const commandEvents = new Set<number>([
  EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED,
  EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED, EventType.EVENT_TYPE_TIMER_STARTED, EventType.EVENT_TYPE_TIMER_CANCELED,
  EventType.EVENT_TYPE_MARKER_RECORDED, EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
  EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED, EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
  EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED,
  EventType.EVENT_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED,
  EventType.EVENT_TYPE_NEXUS_OPERATION_SCHEDULED, EventType.EVENT_TYPE_NEXUS_OPERATION_CANCEL_REQUESTED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
]);

function millis(t: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  if (t == null) return 0;
  return Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
}

/**
 * Projector folds histories into the session log, decoding payloads with
 * a client's data converter (its codec, when payloads are encrypted).
 */
export class Projector {
  private readonly dc: LoadedDataConverter;
  private system = '';
  private readonly messages = new Map<string, string>();
  private readonly signalled = new Map<string, number>();
  private signalsFirst = false;
  private run = 0;
  private scheduled = new Map<string, string>();
  private readonly results = new Map<string, Json>();
  private readonly inputs = new Map<string, Json>();
  private readonly local = new Map<string, Json[]>();
  private journal: Env[] = [];
  private taskAt = 0;
  private lastModel = '';
  private task: Task = noTask();
  private bareTail = false;
  private appends = 0;
  private modelInput = new Map<string, number>();
  private bareModel = '';

  constructor(dc: LoadedDataConverter) {
    this.dc = dc;
  }

  /** readRun indexes one run's history; call it for each run of the chain, oldest first. */
  async readRun(events: HistoryEvent[]): Promise<void> {
    this.scheduled = new Map();
    this.task = noTask();
    this.lastModel = '';
    this.modelInput = new Map();
    this.bareModel = '';
    this.run++;
    this.signalsFirst = false;
    this.bareTail = false;
    for (const ev of events) {
      try {
        this.track(ev);
        await this.read(ev);
      } catch (err) {
        const name = EventType[ev.eventType ?? 0] ?? String(ev.eventType);
        throw new ProjectionError(`history event ${String(ev.eventId)} (${name}): ${(err as Error).message}`, { cause: err });
      }
    }
    this.endTask();
  }

  /** log is the session log of the runs read: the whole log from seq 0, gap-free, each event's content restored. */
  log(): EventlogEnvelope[] {
    const sorted = this.journal.map((e, i) => ({ e, i })).sort((a, b) => a.e.seq - b.e.seq || a.i - b.i).map(({ e }) => e);
    const log = sorted.filter((e, i) => i === 0 || e.seq !== sorted[i - 1].seq);
    const out: EventlogEnvelope[] = [];
    log.forEach((env, i) => {
      if (i > 0 && env.seq !== log[i - 1].seq + 1) throw new ProjectionError(`journal gap: seq ${env.seq} follows ${log[i - 1].seq}`);
      const r = this.resolve(env);
      this.inlined(r);
      out.push(envelope(r));
    });
    out.forEach((env, i) => {
      if (env.seq !== i) throw new ProjectionError(`chain log has a gap: seq ${env.seq} at position ${i}`);
    });
    return out;
  }

  private async decode<T>(p: temporal.api.common.v1.IPayloads | null | undefined): Promise<T | undefined> {
    const payloads = p?.payloads;
    if (payloads == null || payloads.length === 0) return undefined;
    return decodeFromPayloadsAtIndex<T>(this.dc, 0, payloads as Payload[]);
  }

  private track(ev: HistoryEvent): void {
    const t = ev.eventType ?? 0;
    if (t === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) {
      this.taskAt = millis(ev.eventTime);
    } else if (t === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
      this.endTask();
      this.task = { open: true, at: this.taskAt, model: this.bareTail ? this.bareModel : this.lastModel, idle: false, bare: this.bareTail, journaled: false };
      this.bareModel = '';
      this.lastModel = '';
      return;
    } else if (t === EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES) {
      this.task.idle = this.task.idle || this.setsIdle(ev);
      return;
    } else if (commandEvents.has(t)) {
      return;
    }
    this.endTask();
  }

  private setsIdle(ev: HistoryEvent): boolean {
    const p = ev.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.[Attrs.status];
    if (p == null) return false;
    try {
      return this.dc.payloadConverter.fromPayload<string>(p as Payload) === 'idle';
    } catch {
      return false;
    }
  }

  private plainTail(t: Task): boolean {
    return t.open && !t.journaled && t.model !== '' && (t.idle || t.bare);
  }

  private endTask(): void {
    const t = this.task;
    this.task = noTask();
    if (this.plainTail(t)) this.journal.push(...idleTail(this.next(), t.at, t.model));
  }

  private tailBefore(j: Env[]): void {
    const t = this.task;
    if (!this.plainTail(t) || j[0].seq <= this.next()) return;
    const tail = idleTail(this.next(), t.at, t.model);
    if (tail[0].seq + tail.length === j[0].seq) this.journal.push(...tail);
  }

  private next(): number {
    const n = this.journal.length;
    return n > 0 ? this.journal[n - 1].seq + 1 : 0;
  }

  private append(journal: unknown): void {
    const envs = envelopes(journal);
    if (envs.length > 0) {
      this.tailBefore(envs);
      this.task.journaled = true;
      this.appends++;
    }
    this.journal.push(...envs);
  }

  private async read(ev: HistoryEvent): Promise<void> {
    switch (ev.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
        return this.started(await this.decode<SignalsAgentInput>(ev.workflowExecutionStartedEventAttributes?.input));
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED: {
        const a = ev.workflowExecutionSignaledEventAttributes;
        return this.delivered(a?.signalName ?? '', a?.input, false);
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED: {
        const input = ev.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
        return this.delivered(input?.name ?? '', input?.args, true);
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        return this.activity(String(ev.eventId), ev.activityTaskScheduledEventAttributes!);
      case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: {
        const a = ev.activityTaskCompletedEventAttributes;
        return this.completed(String(a?.scheduledEventId), a?.result);
      }
      case EventType.EVENT_TYPE_MARKER_RECORDED:
        return this.marker(ev.markerRecordedEventAttributes!);
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW: {
        const next = await this.decode<SignalsAgentInput>(ev.workflowExecutionContinuedAsNewEventAttributes?.input);
        if (next?.seed != null) this.append(next.seed.journal); // the run's tail rides in the next run's input
        return;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED: {
        const res = await this.decode<SignalsAgentResult>(ev.workflowExecutionCompletedEventAttributes?.result);
        this.append(res?.journal);
        return;
      }
    }
  }

  private started(input: SignalsAgentInput | undefined): void {
    if (input === undefined) return;
    this.system = input.options?.system_prompt ?? '';
    if (input.first != null) this.take(input.first.id, input.first.content, false);
    const seed = input.seed;
    if (seed != null) {
      // Pending messages carried from the previous run, with content; scheduled ones too.
      const inbox = seed.state?.inbox;
      for (const p of [...(inbox?.next_turn ?? []), ...(inbox?.next_step ?? [])]) this.take(p.id, p.content, false);
      for (const m of seed.state?.scheduled ?? []) this.take(m.id, m.content, false);
    }
  }

  private async delivered(name: string, input: temporal.api.common.v1.IPayloads | null | undefined, byUpdate: boolean): Promise<void> {
    let v: Record<string, unknown> | undefined;
    try {
      v = await this.decode<Record<string, unknown>>(input);
    } catch {
      return; // a malformed signal was rejected by the workflow too
    }
    if (v == null || typeof v !== 'object') return;
    const str = (x: unknown): string => (typeof x === 'string' ? x : '');
    switch (name) {
      case Signals.followup: case Signals.steer: case Signals.inject: case Signals.send:
        return this.take(str(v.id), str(v.content), byUpdate);
      case Signals.childReport: // a child's answer, by its report ID
        return this.take(str(v.id), str(v.text), byUpdate);
      case Updates.approve: case Updates.deny: case Updates.answer: // a person's reason or answer
        return this.take(str(v.id), str(v.text), byUpdate);
    }
  }

  /**
   * take indexes a delivered message: the first delivery of an ID wins,
   * except an update accepted in the run of a signal of the same ID that
   * precedes it (the workflow took the update's copy), unless the run's
   * config says signals_first (projection.take).
   */
  private take(id: string | undefined, content: string | undefined, byUpdate: boolean): void {
    if (!id) return;
    const run = this.signalled.get(id);
    if (run !== undefined && byUpdate && run === this.run && !this.signalsFirst) {
      this.messages.set(id, content ?? '');
      this.signalled.delete(id);
      return;
    }
    if (this.messages.has(id)) return;
    this.messages.set(id, content ?? '');
    if (!byUpdate) this.signalled.set(id, this.run);
  }

  private async activity(eventId: string, a: temporal.api.history.v1.IActivityTaskScheduledEventAttributes): Promise<void> {
    const id = a.activityId ?? '';
    this.scheduled.set(eventId, id);
    const raw = await this.decode<Json>(a.input);
    this.inputs.set(id, raw);
    if (raw === undefined || raw === null || typeof raw !== 'object') throw new ProjectionError(`activity ${id}: input is not an object`);
    this.append((raw as { journal?: unknown }).journal);
    if (parseModelActivityId(id) !== undefined) this.modelInput.set(id, this.appends);
  }

  private async completed(scheduledId: string, result: temporal.api.common.v1.IPayloads | null | undefined): Promise<void> {
    const id = this.scheduled.get(scheduledId);
    if (id === undefined) return;
    const raw = await this.decode<Json>(result);
    this.results.set(id, raw);
    if (parseModelActivityId(id) !== undefined) this.answered(id, raw);
  }

  private answered(id: string, raw: Json): void {
    this.lastModel = id;
    if (!this.bareTail) return;
    const at = this.modelInput.get(id);
    const calls = (raw as { tool_calls?: unknown[] } | null)?.tool_calls;
    if (at === undefined || at !== this.appends || raw == null || typeof raw !== 'object' || (calls?.length ?? 0) > 0) return;
    this.bareModel = id;
  }

  private async marker(a: temporal.api.history.v1.IMarkerRecordedEventAttributes): Promise<void> {
    if (a.markerName === 'LocalActivity') {
      const p = a.details?.result;
      if (p == null) return;
      const raw = await this.decode<Json>(p);
      const callId = (raw as { call_id?: unknown } | null)?.call_id;
      if (typeof callId !== 'string' || callId === '') return; // not a tool result
      this.local.set(callId, [...(this.local.get(callId) ?? []), raw]);
      return;
    }
    if (a.markerName !== 'SideEffect') return;
    const m = await this.decode<{ tether_journal?: unknown; signals_first?: boolean; bare_tail?: boolean }>(a.details?.data);
    if (m == null || typeof m !== 'object') return;
    this.signalsFirst = this.signalsFirst || m.signals_first === true;
    this.bareTail = this.bareTail || m.bare_tail === true;
    this.append(m.tether_journal);
  }

  private resolve(env: Env): Env {
    if (!env.ref) return env;
    const colon = env.ref.indexOf(':');
    const kind = colon < 0 ? '' : env.ref.slice(0, colon);
    const key = colon < 0 ? '' : env.ref.slice(colon + 1);
    if (key === '') throw new ProjectionError(`seq ${env.seq}: malformed ref ${JSON.stringify(env.ref)}`);
    switch (kind) {
      case 'msg': {
        const content = this.messages.get(key);
        if (content === undefined) throw new ProjectionError(`seq ${env.seq}: no message ${key} in history`);
        return restore(env, content, key, undefined);
      }
      case 'act':
        if (!this.results.has(key)) throw new ProjectionError(`seq ${env.seq}: no result of activity ${key} in history`);
        return restore(env, '', key, this.results.get(key));
      case 'in':
        if (!this.inputs.has(key)) throw new ProjectionError(`seq ${env.seq}: no input of activity ${key} in history`);
        return restore(env, '', key, this.inputs.get(key));
      case 'la': {
        const queue = this.local.get(key) ?? [];
        if (queue.length === 0) throw new ProjectionError(`seq ${env.seq}: no local activity result for call ${key} in history`);
        this.local.set(key, queue.slice(1));
        return restore(env, '', key, queue[0]);
      }
      case 'start':
        return restore(env, this.system, key, undefined);
      default:
        throw new ProjectionError(`seq ${env.seq}: unknown ref ${env.ref}`);
    }
  }

  /** inlined takes the content of a message inserted with its content inline (a child's report with no answer). */
  private inlined(env: Env): void {
    if (env.ref || env.type !== 'inbox/inserted') return;
    const d = env.data as { message_id?: string; content?: string } | undefined;
    if (d?.content) this.messages.set(d.message_id ?? '', d.content);
  }
}

/** restore is eventlog.Restore: the stripped event filled from what its ref names. */
function restore(env: Env, content: string, key: string, whole: Json | undefined): Env {
  if (env.data === undefined) {
    if (whole === undefined || whole === null) throw new ProjectionError(`restore ${env.type} (seq ${env.seq}): no data from ${env.ref}`);
    return { ...env, data: canonical(env.type, whole) };
  }
  if (whole !== undefined && whole !== null) { // fields from the referenced object, then the kept ones
    if (env.type !== 'context/compacted') throw new ProjectionError(`restore ${env.type} (seq ${env.seq}): no merge for ref ${env.ref}`);
    const kept = env.data as { keep?: number };
    return { ...env, data: canonical(env.type, { ...(whole as object), keep: kept.keep ?? 0 }) };
  }
  const f = contentFields[env.type];
  if (f === undefined) throw new ProjectionError(`restore ${env.type} (seq ${env.seq}): no content field for ref ${env.ref}`);
  const data: Record<string, Json> = { ...(env.data as object) };
  data[f.content] = content;
  if (f.id) data.message_id = key;
  return { ...env, data: canonical(env.type, data) };
}

/** goTime writes unix ms as Go's encoding writes a UTC time.Time (RFC 3339, trailing zeros of the fraction left out). */
export function goTime(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2006-01-02T15:04:05.000Z
  const [whole, frac] = iso.slice(0, -1).split('.');
  const f = (frac ?? '').replace(/0+$/, '');
  return f === '' ? `${whole}Z` : `${whole}.${f}Z`;
}

function envelope(e: Env): EventlogEnvelope {
  const out: EventlogEnvelope = { seq: e.seq, at: goTime(e.at), type: e.type };
  if (e.ref) out.ref = e.ref;
  if (e.data !== undefined) out.data = e.data as EventlogEnvelope['data'];
  return out;
}

/**
 * fetchChain reads the histories of every run of an agent's chain, oldest
 * first, following each run's Continue-As-New link back from the latest
 * (projection.FetchChain). It needs no worker.
 */
export async function fetchChain(client: Client, workflowId: string): Promise<HistoryEvent[][]> {
  const runs: HistoryEvent[][] = [];
  let runId: string | undefined;
  for (;;) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    runs.unshift(events);
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    if (!runId) return runs;
  }
}

/**
 * logFromHistory is the session log of an agent read from the histories
 * of its chain of runs, with no worker: the log as far as the workflow
 * tasks completed so far wrote it (projection.FromChain).
 */
export async function logFromHistory(client: Client, workflowId: string): Promise<EventlogEnvelope[]> {
  const p = new Projector(client.options.loadedDataConverter);
  for (const [i, events] of (await fetchChain(client, workflowId)).entries()) {
    try {
      await p.readRun(events);
    } catch (err) {
      throw new ProjectionError(`run ${i}: ${(err as Error).message}`, { cause: err });
    }
  }
  return p.log();
}
