// Following a feed (tokens) against local HTTP servers speaking the feed's
// protocol (Server-Sent Events of signals.StreamEvent, as a worker's hub
// serves them): a broken connection resumes from the next seq, a feed that
// moved is read again from the turn the reader was at, skipping calls read
// to their end, and a refusal for load ends the iteration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamError, TokenEvent, followFeed } from '../src';
import type { SignalsLiveFeed, SignalsStreamEvent } from '../src';

type Handler = (req: IncomingMessage, res: ServerResponse, q: URLSearchParams) => void;

async function serve(handler: Handler): Promise<{ url: string; server: Server; seen: { query: string; auth?: string }[] }> {
  const seen: { query: string; auth?: string }[] = [];
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    seen.push({ query: u.searchParams.toString(), auth: req.headers.authorization });
    handler(req, res, u.searchParams);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed/agent`, server, seen };
}

function events(res: ServerResponse, evs: SignalsStreamEvent[], end: boolean): void {
  res.writeHead(200, { 'Content-Type': 'text/event-stream' });
  res.write(': ping\n\n');
  for (const ev of evs) res.write(`data: ${JSON.stringify(ev)}\n\n`);
  if (end) res.end();
}

const call = (activity: string, attempt = 1) => ({ activity, attempt });

test('a feed is resumed after a broken connection and read again from its turn when it moves', async () => {
  const a = await serve((_req, res, q) => {
    if (q.get('turn') === '1') {
      events(res, [
        { seq: 0, kind: 'call', call: call('model-1-1') }, { seq: 1, kind: 'chunk', chunk: { text: 'he' }, call: call('model-1-1') },
        { seq: 2, kind: 'chunk', chunk: { text: 'llo' }, call: call('model-1-1') }, { seq: 3, kind: 'done', call: call('model-1-1') },
        { seq: 4, kind: 'call', call: call('model-2-1') }, { seq: 5, kind: 'chunk', chunk: { text: 'wor' }, call: call('model-2-1') },
      ], true); // broken off mid-call
    } else if (q.get('from') === '6') {
      events(res, [{ seq: 6, kind: 'chunk', chunk: { text: 'ld' }, call: call('model-2-1') }], true);
    } else {
      events(res, [], true); // nothing more here: the agent moved
    }
  });
  const b = await serve((_req, res) => {
    events(res, [
      { seq: 0, kind: 'call', call: call('model-2-1') }, { seq: 1, kind: 'chunk', chunk: { text: 'wor' }, call: call('model-2-1') },
      { seq: 2, kind: 'chunk', chunk: { text: 'ld' }, call: call('model-2-1') }, { seq: 3, kind: 'done', call: call('model-2-1') },
      { seq: 4, kind: 'call', call: call('model-3-1', 2) }, { seq: 5, kind: 'chunk', chunk: { text: '!' }, call: call('model-3-1', 2) },
      { seq: 6, kind: 'error', error: 'overloaded', call: call('model-3-1', 2) },
    ], false); // kept open
  });
  const feeds: SignalsLiveFeed[] = [
    { url: a.url, token: 'token-a', turn: 1 }, { url: a.url, token: 'token-a', turn: 2 }, { url: a.url, token: 'token-a', turn: 2 },
    { url: b.url, token: 'token-b', turn: 2 },
  ];
  let asked = 0;
  const ask = async () => feeds[Math.min(asked++, feeds.length - 1)];
  const stop = new AbortController();
  const got: string[] = [];
  try {
    for await (const ev of followFeed(ask, { signal: stop.signal })) {
      got.push(describe(ev));
      if (ev.turn === 3 && ev.kind === 'reset') stop.abort();
    }
  } finally {
    a.server.closeAllConnections(); b.server.closeAllConnections();
    a.server.close(); b.server.close();
  }
  assert.deepEqual(got, [
    'chunk 1.1#1 he', 'chunk 1.1#1 llo', 'done 1.1#1', 'chunk 2.1#1 wor', // the first connection
    'chunk 2.1#1 ld', // resumed from seq 6 on the same feed
    'reset 2.1#1', 'chunk 2.1#1 wor', 'chunk 2.1#1 ld', 'done 2.1#1', // the moved feed streams the call again from its start
    'chunk 3.1#2 !', 'reset 3.1#2', // the attempt failed: discard its output
  ]);
  assert.deepEqual(a.seen.map((s) => s.query), ['turn=1', 'from=6', 'from=7']);
  assert.deepEqual(b.seen.map((s) => s.query), ['turn=2'], 'the moved feed is read from the turn the reader was at');
  assert.ok(a.seen.every((s) => s.auth === 'Bearer token-a') && b.seen.every((s) => s.auth === 'Bearer token-b'),
    'the token travels in the Authorization header');
});

test('a feed refusing for load ends the iteration with a StreamError; one that streams nothing yields nothing', async () => {
  const busy = await serve((_req, res) => {
    res.writeHead(429);
    res.end('too many subscribers');
  });
  try {
    const it = followFeed(async () => ({ url: busy.url, token: 't', turn: 1 }));
    await assert.rejects(it.next(), (err: unknown) => err instanceof StreamError && err.status === 429);
  } finally {
    busy.server.close();
  }
  const none: TokenEvent[] = [];
  for await (const ev of followFeed(async () => ({ url: '', token: '', turn: 0 }))) none.push(ev);
  assert.deepEqual(none, []);
});

function describe(ev: TokenEvent): string {
  const text = ev.kind === 'chunk' ? ` ${ev.chunk?.text}` : '';
  return `${ev.kind} ${ev.turn}.${ev.step}#${ev.attempt}${text}`;
}
