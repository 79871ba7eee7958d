// Live tokens (docs/clients.md, "The live feed"): the feed query names
// where the worker holding the agent streams its model calls, read here as
// Server-Sent Events. The Go client's agent/tokens.go and streamread.go
// are the reference. Chunks never enter history: the session log is the
// durable record.
import type { SignalsCallRef, SignalsChunk, SignalsLiveFeed, SignalsStreamEvent } from './schema';
import { sleep } from './retry';

/** What a TokenEvent carries: a live delta, a reset (discard the attempt's partial output), or a call's end. */
export type TokenKind = 'chunk' | 'reset' | 'done';

/** One live event of an agent's model calls (agent.TokenEvent). */
export interface TokenEvent {
  kind: TokenKind;
  turn: number;
  step: number;
  attempt: number;
  /** Set for kind "chunk". */
  chunk?: SignalsChunk;
}

export interface TokenOptions {
  /**
   * Start at the first model call of this turn (or a later one) that the
   * worker still holds; default: the turn in flight, or the next one.
   */
  fromTurn?: number;
  /** Ends the iteration (and the connection) when aborted. */
  signal?: AbortSignal;
}

/** The feed's own answers that end a subscription for load or absence (signals.ErrNoStream, ErrStreamBusy, ErrHubBusy). */
export class StreamError extends Error {
  /** The HTTP status: 404 (no such feed, or a wrong token), 429 (the stream's subscriber limit), 503 (the worker's limit, or it shuts down). */
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'StreamError';
    this.status = status;
  }
}

/** A response that is not the stream of events a worker sends. */
export class MalformedStreamError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MalformedStreamError';
  }
}

/** The endpoint's own error events and the stream event kinds (signals.Stream*). */
export const StreamKinds = { call: 'call', chunk: 'chunk', done: 'done', error: 'error' } as const;
export const STREAM_LAGGED = 'lagged';

const MAX_EVENT_BYTES = 4 << 20;
const MIN_POLL_MS = 10;
const MAX_POLL_MS = 250;

/** parseModelActivityId reads turn and step from a model activity ID ("model-<turn>-<step>"). */
export function parseModelActivityId(id: string): { turn: number; step: number } | undefined {
  const m = /^model-([0-9]+)-([0-9]+)$/.exec(id);
  if (!m) return undefined;
  const turn = Number(m[1]);
  const step = Number(m[2]);
  return turn >= 1 && step >= 1 ? { turn, step } : undefined;
}

/** terminal reports an event that ends a connection (signals.StreamEvent.Terminal). */
function terminal(ev: SignalsStreamEvent): boolean {
  return (ev.kind === StreamKinds.done || ev.kind === StreamKinds.error) && ev.call == null;
}

/**
 * readEvents reads one connection to a stream URL, yielding each event;
 * it returns after a terminal event, and throws StreamError for a refusal,
 * MalformedStreamError for bytes that are not events, and an Error named
 * "StreamInterrupted" when the response ends before a terminal event. The
 * token travels in the Authorization header, never in the URL.
 */
export async function* readEvents(
  streamUrl: string, token: string, params: Record<string, string>, signal?: AbortSignal,
): AsyncGenerator<SignalsStreamEvent> {
  const u = new URL(streamUrl);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  const resp = await fetch(u, { headers: { Accept: 'text/event-stream', Authorization: `Bearer ${token}` }, signal });
  if (resp.status === 404 || resp.status === 429 || resp.status === 503) {
    await resp.body?.cancel();
    const why = resp.status === 404 ? 'no such stream' : resp.status === 429 ? 'stream at its subscriber limit' : 'worker at its stream limit or shutting down';
    throw new StreamError(resp.status, `connect stream ${streamUrl}: ${why} (${resp.status})`);
  }
  const ct = (resp.headers.get('content-type') ?? '').split(';')[0].trim();
  if (resp.status !== 200 || ct !== 'text/event-stream') {
    await resp.body?.cancel();
    throw new MalformedStreamError(`connect stream ${streamUrl}: status ${resp.status}, content type ${JSON.stringify(ct)}`);
  }
  if (resp.body === null) throw interrupted(streamUrl);
  const reader = resp.body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  let data: string[] | undefined;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw interrupted(streamUrl);
      buf += decoder.decode(value, { stream: true });
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        let line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.endsWith('\r')) line = line.slice(0, -1);
        if (line === '') {
          if (data === undefined) continue;
          let ev: SignalsStreamEvent;
          try {
            ev = JSON.parse(data.join('\n')) as SignalsStreamEvent;
          } catch (err) {
            throw new MalformedStreamError(`read stream ${streamUrl}: decode event: ${(err as Error).message}`, { cause: err });
          }
          data = undefined;
          yield ev;
          if (terminal(ev)) return;
          continue;
        }
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        if (field !== 'data') continue; // a comment (": ping") or a field Tether does not send
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        (data ??= []).push(value);
      }
      if (buf.length > MAX_EVENT_BYTES) throw new MalformedStreamError(`read stream ${streamUrl}: a line over 4 MiB`);
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function interrupted(streamUrl: string): Error {
  const err = new Error(`read stream ${streamUrl}: stream ended before done or error`);
  err.name = 'StreamInterrupted';
  return err;
}

/**
 * followFeed yields an agent's live tokens, call after call, reading the
 * feed `ask` answers: a broken connection resumes where it stopped, and a
 * feed that moved (another worker took the agent, or a new token) is read
 * again from the turn it was at, skipping calls already read to their end.
 * A call seen in part before a reconnection streams again from its start,
 * after a "reset".
 */
export async function* followFeed(ask: () => Promise<SignalsLiveFeed>, o: TokenOptions = {}): AsyncGenerator<TokenEvent> {
  let feed = await ask();
  if (feed.url === '') return; // the worker streams nothing
  let turn = o.fromTurn ?? feed.turn;
  let next = -1; // the seq to resume from; -1 reads from turn
  const key = (c: SignalsCallRef): string => `${c.activity}#${c.attempt}`;
  const calls = new Map<string, TokenEvent>();
  const ended = new Set<string>();
  let backoff = MIN_POLL_MS;
  for (;;) {
    if (o.signal?.aborted) return;
    const params: Record<string, string> = next >= 0 ? { from: String(next) } : { turn: String(turn) };
    try {
      for await (const ev of readEvents(feed.url, feed.token, params, o.signal)) {
        next = ev.seq + 1;
        if (ev.call == null) { // the endpoint's own error: lagged, replaced, hub closed
          if (ev.error === STREAM_LAGGED) next = ev.seq;
          break;
        }
        const c = key(ev.call);
        if (ended.has(c)) continue; // read to its end before a reconnection
        let base = calls.get(c);
        const seen = base !== undefined;
        if (base === undefined) {
          const at = parseModelActivityId(ev.call.activity) ?? { turn: 0, step: 0 };
          base = { kind: 'reset', turn: at.turn, step: at.step, attempt: ev.call.attempt };
          calls.set(c, base);
          turn = Math.max(turn, at.turn);
        }
        const { chunk: _drop, ...plain } = base;
        void _drop;
        switch (ev.kind) {
          case StreamKinds.call:
            if (seen) yield { ...plain, kind: 'reset' }; // streams again from its start: drop the part
            break;
          case StreamKinds.chunk:
            yield { ...plain, kind: 'chunk', chunk: ev.chunk ?? {} };
            break;
          case StreamKinds.done:
            ended.add(c);
            yield { ...plain, kind: 'done' };
            break;
          default:
            ended.add(c);
            yield { ...plain, kind: 'reset' };
        }
      }
    } catch (err) {
      if (o.signal?.aborted) return;
      if (err instanceof StreamError && err.status !== 404) throw err; // refused for load
      if (err instanceof MalformedStreamError) throw err;
    }
    await sleep(backoff);
    backoff = Math.min(2 * backoff, MAX_POLL_MS);
    if (o.signal?.aborted) return;
    const moved = await ask();
    if (moved.url !== feed.url || moved.token !== feed.token) {
      feed = moved;
      next = -1; // a new feed: read it from the turn we were at
      if (feed.url === '') return;
    }
  }
}
