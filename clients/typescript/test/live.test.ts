// The client against a live Tether: the Go test ts_test.go starts an
// embedded Temporal server and a worker on the scripted model (which answers
// "/say TEXT" with TEXT and runs "/tool NAME {args}"), and sets
// TETHER_ADDRESS. Without it these tests skip.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, Connection } from '@temporalio/client';
import { SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import {
  AgentHandle, AlreadyExistsError, Attrs, ClosedError, EventlogEnvelope, InvalidEditError, InvalidMessageError, InvalidRewindError,
  MAX_DECISION_BYTES, NoSuchDecisionError, RewindLostError,
  ReusedMessageIDError, TetherClient, TetherCodec, TokenEvent, parseCodecKeys,
} from '../src';

const address = process.env.TETHER_ADDRESS;
const skip = address ? false : 'TETHER_ADDRESS is not set: run `go test ./clients/typescript/` to start a live Tether';

// Each live test ends within a minute, or fails.
const t60 = { timeout: 60_000 };

let tether: TetherClient;
let n = 0;
const fresh = (name: string): string => `ts-${name}-${process.pid}-${++n}`;

function texts(log: EventlogEnvelope[], type: string): string[] {
  return log.filter((e) => e.type === type).map((e) => String((e.data as { text?: string; content?: string }).text ??
    (e.data as { content?: string }).content));
}

async function blockedCall(h: AgentHandle): Promise<string> {
  const st = await h.waitIdle({ orBlocked: true, timeoutMs: 30_000 });
  assert.equal(st.pending?.length, 1, 'one call waits for a person');
  return st.pending![0].call_id;
}

describe('against a live Tether', { skip }, () => {
  before(async () => {
    tether = await TetherClient.connect({
      address, namespace: process.env.TETHER_NAMESPACE, taskQueue: process.env.TETHER_TASK_QUEUE,
    });
  });
  after(async () => tether?.close());

  test('create, an acknowledged followup, wait for idle, status and the log', t60, async () => {
    const h = await tether.create({ id: fresh('basic'), first: '/say first answer' });
    await h.waitIdle({ timeoutMs: 30_000 });
    const ack = await h.followup('/say second answer', { id: 'second' });
    assert.equal(ack.message_id, 'second');
    assert.ok(ack.seq > 0, `the ack names its inbox/inserted event: ${ack.seq}`);
    const st = await h.waitIdle({ timeoutMs: 30_000 });
    assert.equal(st.turn, 2);
    assert.equal(st.disposed, false);
    const log = await h.log();
    assert.deepEqual(log.map((e) => e.seq), log.map((_, i) => i), 'the log is whole, in order');
    assert.equal(log[ack.seq].type, 'inbox/inserted');
    assert.deepEqual(texts(log, 'assistant/message'), ['first answer', 'second answer']);
    const page = await h.logPage({ from: 1, limit: 2 });
    assert.deepEqual(page.events?.map((e) => e.seq), [1, 2]);
    assert.deepEqual(await h.logFromHistory(), log, 'the log folded from history is the log query\'s');
    assert.equal(page.next, 3);
    assert.equal(page.len, log.length);
  });

  test('an ID is the dedupe key: the same message again is the first answer, other content is refused', t60, async () => {
    const h = await tether.create({ id: fresh('dedupe') });
    const first = await h.followup('/say once', { id: 'order-1' });
    const again = await h.followup('/say once', { id: 'order-1' });
    assert.deepEqual(again, first);
    await assert.rejects(h.followup('/say twice', { id: 'order-1' }), ReusedMessageIDError);
    await assert.rejects(h.followup('   '), (err: unknown) => err instanceof InvalidMessageError &&
      err.type === 'tether.InvalidMessage', 'the agent refuses blank content with a typed rejection');
    await assert.rejects(h.followup('hi', { id: 'has space' }), InvalidMessageError);
    await h.waitIdle({ timeoutMs: 30_000 });
    const log = await h.log();
    assert.deepEqual(texts(log, 'assistant/message'), ['once'], 'the duplicate ran no second turn');
  });

  test('steer, inject and a signalled followup reach the agent', t60, async () => {
    const h = await tether.create({ id: fresh('lists') });
    const sig = await h.followup('/say by signal', { signal: true, id: 'sig-1' });
    assert.deepEqual(sig, { message_id: 'sig-1', seq: -1 });
    await h.waitIdle({ timeoutMs: 30_000 });
    const inj = await h.inject('context for later');
    assert.ok(inj.seq > 0);
    const st = await h.status();
    assert.equal(st.next_step?.length, 1, 'an inject does not wake the agent');
    await h.steer('/say steered');
    await h.waitIdle({ timeoutMs: 30_000 });
    const log = await h.log();
    assert.deepEqual(texts(log, 'assistant/message'), ['by signal', 'steered']);
  });

  test('create refuses an ID in use and an ID whose agent was disposed', t60, async () => {
    const id = fresh('once');
    const h = await tether.create({ id, first: '/say hi' });
    await assert.rejects(tether.create({ id }), AlreadyExistsError);
    await h.waitIdle({ timeoutMs: 30_000 });
    const res = await h.dispose('done');
    assert.ok(res.log_len > 0, `the result says the log's length: ${res.log_len}`);
    await assert.rejects(tether.create({ id }), AlreadyExistsError, 'an ID is never used again');
    await assert.rejects(h.followup('/say late'), ClosedError);
    assert.equal((await h.status()).disposed, true, 'a disposed agent still reads as it last was');
  });

  test('an agent that failed before it could answer reads as closed at once', t60, async () => {
    const h = await tether.create({ id: fresh('invalid'), options: { hooks: null, tools: ['no-such-tool'] } });
    const started = Date.now();
    await assert.rejects(h.status(), (err: unknown) => err instanceof ClosedError && err.status === 'FAILED');
    assert.ok(Date.now() - started < 10_000, `reported in ${Date.now() - started} ms, not after the 15 s a run may take to be ready`);
  });

  test('approve and deny a call that waits for approval', t60, async () => {
    const h = await tether.create({
      id: fresh('approve'), first: '/tool calculate {"expression":"6*7"}',
      options: { hooks: null, tools: ['calculate'], approval: { tools: ['calculate'] } },
    });
    const call = await blockedCall(h);
    await assert.rejects(h.deny('no-such-call', 'ops', 'x'), NoSuchDecisionError);
    const d = await h.approve(call, 'ops', 'fine');
    assert.equal(d.call_id, call);
    assert.ok(d.seq > 0);
    await h.waitIdle({ timeoutMs: 30_000 });
    await assert.rejects(h.approve(call, 'ops', 'again'), NoSuchDecisionError, 'a call is decided once');
    const results = (await h.log()).filter((e) => e.type === 'tool/result').map((e) => (e.data as { content: string }).content);
    assert.deepEqual(results, ['42']);
  });

  test('approve with edited arguments: the call runs with them, the log keeps the original, bad edits are refused and the call waits', t60, async () => {
    const h = await tether.create({
      id: fresh('edit'), first: '/tool calculate {"expression":"6*7"}',
      options: { hooks: null, tools: ['calculate'], approval: { tools: ['calculate'] } },
    });
    const call = await blockedCall(h);
    for (const bad of [[1, 2], null, 'x', 7] as unknown[]) {
      await assert.rejects(h.approve(call, 'ops', '', { args: bad as Record<string, unknown> }), InvalidEditError, `refused before sending: ${JSON.stringify(bad)}`);
    }
    await assert.rejects(h.approve(call, 'ops', '', { args: { expression: 'x'.repeat(MAX_DECISION_BYTES) } }), InvalidEditError, 'too large');
    await assert.rejects(h.approve(call, 'ops', '', { args: { expression: 5 } }), InvalidEditError, 'the tool\'s schema refuses it');
    assert.equal((await h.status()).pending?.[0]?.call_id, call, 'a refused edit leaves the call waiting');
    const d = await h.approve(call, 'ops', 'six by eight', { args: { expression: '6*8' } });
    assert.equal(d.call_id, call);
    await h.waitIdle({ timeoutMs: 30_000 });
    const log = await h.log();
    const made = log.filter((e) => e.type === 'decision/made').map((e) => e.data as Record<string, unknown>);
    assert.equal(made.length, 1, 'one decision, the edit');
    assert.equal(made[0].decider, 'ops');
    assert.equal(made[0].approved, true);
    assert.deepEqual(made[0].args, { expression: '6*8' });
    assert.deepEqual(made[0].original, { expression: '6*7' });
    const results = log.filter((e) => e.type === 'tool/result').map((e) => (e.data as { content: string }).content);
    assert.deepEqual(results, ['48'], 'the call ran with the edited arguments');
    assert.deepEqual(await h.logFromHistory(), log, 'history folds to the same log');

    const locked = await tether.create({
      id: fresh('noedit'), first: '/tool calculate {"expression":"1+1"}',
      options: { hooks: null, tools: ['calculate'], approval: { tools: ['calculate'], no_edit: ['calculate'] } },
    });
    const lockedCall = await blockedCall(locked);
    await assert.rejects(locked.approve(lockedCall, 'ops', '', { args: { expression: '2+2' } }), InvalidEditError, 'the policy forbids edits');
    await locked.approve(lockedCall, 'ops');
    await locked.waitIdle({ timeoutMs: 30_000 });
    assert.deepEqual((await locked.log()).filter((e) => e.type === 'tool/result').map((e) => (e.data as { content: string }).content), ['2']);
  });

  test('rewind to an ended turn: the log keeps the turns rewound past, refusals are typed and record nothing', t60, async () => {
    const h = await tether.create({ id: fresh('rewind'), first: '/say one' });
    for (const say of ['/say two', '/say three']) {
      await h.waitIdle({ timeoutMs: 30_000 });
      await h.followup(say);
    }
    await h.waitIdle({ timeoutMs: 30_000 });
    await assert.rejects(h.rewind(-1), InvalidRewindError, 'refused before sending');
    await assert.rejects(h.rewind(1.5), InvalidRewindError, 'refused before sending');
    await assert.rejects(h.rewind(9), InvalidRewindError, 'a turn that has not ended');
    const r = await h.rewind(1, 'ops');
    assert.equal(r.turn, 1);
    assert.equal(r.past, 3, 'turns 2 and 3 rewound past');
    assert.ok(r.seq > 0);
    assert.equal((await h.rewind(1)).seq, -1, 'already there: nothing recorded');
    await h.followup('/say again');
    const st = await h.waitIdle({ timeoutMs: 30_000 });
    assert.equal(st.turn, 4, 'turn numbers go on');
    await assert.rejects(h.rewind(2), RewindLostError, 'a turn rewound past is reached by a fork, not in place');
    const log = await h.log();
    const rewound = log.filter((e) => e.type === 'session/rewound');
    assert.equal(rewound.length, 1, 'refusals record nothing');
    assert.equal(rewound[0].seq, r.seq);
    assert.deepEqual({ ...(rewound[0].data as Record<string, unknown>), at: undefined },
      { to_turn: 1, past: 3, keep: r.keep, by: 'ops', at: undefined });
    assert.deepEqual(texts(log, 'assistant/message'), ['one', 'two', 'three', 'again'], 'the log is never rewritten');
    assert.deepEqual(await h.logFromHistory(), log, 'history folds to the same log');
  });

  test('answer an ask_human question', t60, async () => {
    const h = await tether.create({ id: fresh('ask'), first: '/tool ask_human {"question":"which colour?"}',
      options: { hooks: null, tools: ['ask_human'] },
    });
    const call = await blockedCall(h);
    await h.answer(call, 'me', 'green');
    await h.waitIdle({ timeoutMs: 30_000 });
    const log = await h.log();
    const made = log.filter((e) => e.type === 'decision/made').map((e) => e.data);
    assert.equal(made.length, 1);
    assert.equal((made[0] as { text: string }).text, 'green');
    const results = log.filter((e) => e.type === 'tool/result').map((e) => (e.data as { content: string }).content);
    assert.deepEqual(results, ['green'], 'the answer is the call\'s result');
  });

  test('cancel ends a turn that waits', t60, async () => {
    const h = await tether.create({ id: fresh('cancel'), first: '/tool wait {"seconds":600}',
      options: { hooks: null, tools: ['wait'] },
    });
    for (let st = await h.status(); !st.in_turn || (st.waits?.length ?? 0) === 0; st = await h.status()) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await h.cancel('enough');
    const st = await h.waitIdle({ timeoutMs: 30_000 });
    assert.equal(st.in_turn, false);
    const ends = (await h.log()).filter((e) => e.type === 'turn/end').map((e) => e.data as { reason: string });
    assert.equal(ends.length, 1);
    assert.equal(ends[0].reason, 'canceled');
  });

  test('tree reads an agent and the child it spawned', t60, async () => {
    // The child asks a question, so it stays open, listed in the parent's
    // status.children, until the test answers it.
    const task = '/tool ask_human {"question":"ready?"}';
    const h = await tether.create({
      id: fresh('tree'), first: `/tool spawn_agent ${JSON.stringify({ task, mode: 'wait', tools: ['ask_human'] })}`,
      options: { hooks: null, tools: ['spawn_agent', 'ask_human'] },
    });
    let tree = await h.tree();
    while (tree.children.length === 0 || (tree.children[0].status.pending?.length ?? 0) === 0) {
      await new Promise((r) => setTimeout(r, 50));
      tree = await h.tree();
    }
    assert.equal(tree.id, h.id);
    assert.equal(tree.children.length, 1, 'one child');
    const [child] = tree.children;
    assert.deepEqual(child.children, []);
    assert.equal(child.status.pending![0].kind, 'answer', 'the child waits for its answer');
    await tether.agent(child.id).answer(child.status.pending![0].call_id, 'me', 'yes');
    await h.waitIdle({ timeoutMs: 30_000 });
    const results = (await h.log()).filter((e) => e.type === 'tool/result');
    assert.equal(results.length, 1, 'the spawn call has its result');
  });

  test('the log reads across Continue-As-New', t60, async () => {
    // The worker continues a run as new after 3 turns (MaxRunTurns).
    const h = await tether.create({ id: fresh('chain'), first: '/say turn 1' });
    for (let i = 2; i <= 5; i++) {
      await h.waitIdle({ timeoutMs: 30_000 });
      await h.followup(`/say turn ${i}`);
    }
    const st = await h.waitIdle({ timeoutMs: 30_000 });
    assert.ok((st.runs ?? 1) >= 2, `the agent continued as new: runs ${st.runs}`);
    const latest = await h.logPage({ from: 0 });
    assert.ok((latest.base ?? 0) > 0 && latest.prev_run, 'the latest run starts from a base and names the run before');
    const log = await h.log();
    assert.deepEqual(log.map((e) => e.seq), log.map((_, i) => i), 'sequence numbers continue across the chain');
    assert.deepEqual(texts(log, 'assistant/message'), [1, 2, 3, 4, 5].map((i) => `turn ${i}`));
    assert.deepEqual(await h.logFromHistory(), log, 'the log folded from the chain\'s histories is the log query\'s');
    assert.deepEqual(await h.logFromHistory(7), log.slice(7));
  });

  test('an agent is filterable by its search attributes before its first workflow task', t60, async () => {
    // No worker polls this queue: nothing but the start sets them.
    const queue = `ts-no-worker-${process.pid}`;
    const lonely = new TetherClient(tether.temporal, { taskQueue: queue });
    const id = fresh('attrs');
    const h = await lonely.create({ id, options: { hooks: null, provider: 'prov', model: 'mod', parent: 'ts-some-parent' } });
    try {
      const d = await tether.temporal.workflow.getHandle(id).describe();
      const kw = (name: string) => d.typedSearchAttributes.get(defineSearchAttributeKey(name, SearchAttributeType.KEYWORD));
      assert.equal(kw(Attrs.status), 'idle');
      assert.equal(kw(Attrs.model), 'prov/mod');
      assert.equal(kw(Attrs.parent), 'ts-some-parent');
      assert.equal(d.typedSearchAttributes.get(defineSearchAttributeKey(Attrs.turn, SearchAttributeType.INT)), 0);
      const query = `${Attrs.model} = 'prov/mod' AND ${Attrs.status} = 'idle' AND ${Attrs.parent} = 'ts-some-parent' AND WorkflowId = '${id}'`;
      let found: string[] = [];
      for (const until = Date.now() + 20_000; found.length === 0 && Date.now() < until;) {
        found = [];
        for await (const w of tether.temporal.workflow.list({ query })) found.push(w.workflowId);
        if (found.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual(found, [id], 'a visibility query by the attributes finds it');
      const history = await tether.temporal.workflow.getHandle(id).fetchHistory();
      const completed = (history.events ?? []).filter((e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
      assert.equal(completed.length, 0, 'no workflow task ran');
    } finally {
      await tether.temporal.workflow.getHandle(h.id).terminate('the test ends');
    }
  });

  test('tokens stream every model call live, turn after turn, and match the settled messages', t60, async () => {
    const h = await tether.create({ id: fresh('tokens') });
    const stop = new AbortController();
    const got: TokenEvent[] = [];
    const reading = (async () => {
      for await (const ev of h.tokens({ signal: stop.signal, fromTurn: 1 })) {
        got.push(ev);
        if (got.filter((e) => e.kind === 'done').length === 2) return;
      }
    })();
    await h.followup('/say streaming one word at a time');
    await h.waitIdle({ timeoutMs: 30_000 });
    await h.followup('/say and a second turn');
    await h.waitIdle({ timeoutMs: 30_000 });
    const timer = setTimeout(() => stop.abort(), 20_000);
    await reading;
    clearTimeout(timer);
    const done = got.filter((e) => e.kind === 'done');
    assert.deepEqual(done.map((e) => [e.turn, e.step]), [[1, 1], [2, 1]], `a done for each call: ${JSON.stringify(got)}`);
    const streamed = [1, 2].map((turn) => got.filter((e) => e.turn === turn && e.kind === 'chunk').map((e) => e.chunk?.text ?? '').join(''));
    assert.ok(got.filter((e) => e.kind === 'chunk').length > 4, 'several chunks, word by word');
    assert.deepEqual(streamed, texts(await h.log(), 'assistant/message'), 'the chunks of each call are its settled message');
    assert.deepEqual(streamed, ['streaming one word at a time', 'and a second turn']);
    const raw = JSON.stringify(await tether.temporal.workflow.getHandle(h.id).fetchHistory());
    assert.ok(!raw.includes('"token"'), 'no stream token in history');
  });

  test('against a worker with codec keys, payloads are encrypted and read back', { ...t60, skip: process.env.TETHER_CODEC_KEYS ? false : 'TETHER_CODEC_KEYS is not set' }, async () => {
    const codec = new TetherCodec({ keys: parseCodecKeys(process.env.TETHER_CODEC_KEYS!) });
    const secret = await TetherClient.connect({
      address, namespace: process.env.TETHER_NAMESPACE, taskQueue: process.env.TETHER_CODEC_QUEUE,
      dataConverter: { payloadCodecs: [codec] },
    });
    try {
      const h = await secret.create({ id: fresh('codec'), first: '/say the secret words', options: { hooks: null, system_prompt: 'a confidential prompt' } });
      await h.waitIdle({ timeoutMs: 30_000 });
      const ack = await h.followup('/say more secret words', { id: 'secret-2' });
      assert.ok(ack.seq > 0);
      await h.waitIdle({ timeoutMs: 30_000 });
      const log = await h.log();
      assert.deepEqual(texts(log, 'assistant/message'), ['the secret words', 'more secret words']);
      assert.deepEqual(await h.logFromHistory(), log, 'the log folded from encrypted history is the query\'s');
      const connection = await Connection.connect({ address });
      try {
        const plain = new Client({ connection, namespace: process.env.TETHER_NAMESPACE });
        const history = await plain.workflow.getHandle(h.id).fetchHistory();
        const input = history.events?.[0].workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
        assert.equal(Buffer.from(input!.metadata!.encoding!).toString(), 'binary/encrypted');
        const raw = JSON.stringify(history);
        for (const clear of ['secret words', 'confidential']) assert.ok(!raw.includes(clear), `no ${clear} in clear in history`);
        await assert.rejects(new TetherClient(plain).agent(h.id).status(), 'a client without the codec cannot read the answer');
      } finally {
        await connection.close();
      }
    } finally {
      await secret.close();
    }
  });
});
