// The client against the wire contract, no server needed: the generated
// types, the durable names and the rejections are the schema's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ApplicationFailure, WorkflowUpdateFailedError } from '@temporalio/client';
import {
  AGENT_WORKFLOW, Attrs, DEFAULT_TASK_QUEUE, InvalidMessageError, Queries, Rejections, ReusedMessageIDError, Signals, Updates,
  canonical, goTime, messageUpdateId, modelLabel, parseModelActivityId, rejection, validateMessageId,
} from '../src';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const generate = require(path.join(__dirname, '..', '..', 'scripts', 'generate.js'));
const schemaFile: string = generate.schemaPath();
const schema = JSON.parse(readFileSync(schemaFile, 'utf8'));
const x = schema['x-tether'];

test('src/schema.ts is what json-schema-to-typescript makes of the schema (npm run generate)', async () => {
  const want = await generate.render(schemaFile);
  const got = readFileSync(path.join(__dirname, '..', '..', 'src', 'schema.ts'), 'utf8');
  assert.equal(got, want, 'src/schema.ts is stale: run `npm run generate`');
});

test('src/events.ts is what the schema says of each session event (npm run generate)', () => {
  const got = readFileSync(path.join(__dirname, '..', '..', 'src', 'events.ts'), 'utf8');
  assert.equal(got, generate.renderEvents(schemaFile), 'src/events.ts is stale: run `npm run generate`');
});

test('the search attributes are x-tether\'s, and the model label is signals.ModelLabel\'s', () => {
  assert.deepEqual(Object.values(Attrs).sort(), Object.keys(x.searchAttributes).sort());
  assert.equal(modelLabel({}), 'default/default');
  assert.equal(modelLabel({ provider: 'anthropic' }), 'anthropic/default');
  assert.equal(modelLabel({ provider: 'p', model: 'm' }), 'p/m');
});

test('folded events are written as Go writes them', () => {
  assert.equal(goTime(Date.UTC(2026, 0, 2, 3, 4, 5, 120)), '2026-01-02T03:04:05.12Z');
  assert.equal(goTime(Date.UTC(2026, 0, 2, 3, 4, 5, 0)), '2026-01-02T03:04:05Z');
  assert.equal(goTime(Date.UTC(2026, 0, 2, 3, 4, 5, 7)), '2026-01-02T03:04:05.007Z');
  // Only the event's fields, a missing required one as its zero, an empty optional one left out.
  assert.deepEqual(canonical('tool/result', { call_id: 'c', name: 'n', content: '', is_error: false, extra: 1 }),
    { call_id: 'c', name: 'n', content: '' });
  assert.deepEqual(canonical('assistant/message', { text: 'hi' }),
    { text: 'hi', usage: { input_tokens: 0, output_tokens: 0 }, finish_reason: '' });
  assert.deepEqual(parseModelActivityId('model-3-2'), { turn: 3, step: 2 });
  for (const bad of ['model-0-1', 'model-1', 'tool-1-1-0', 'model-1-x']) assert.equal(parseModelActivityId(bad), undefined, bad);
});

test('the durable names are x-tether\'s', () => {
  assert.equal(AGENT_WORKFLOW, x.workflow.type);
  assert.equal(DEFAULT_TASK_QUEUE, x.workflow.taskQueue);
  assert.deepEqual(Object.values(Signals).sort(), Object.keys(x.signals).sort());
  assert.deepEqual(Object.values(Updates).sort(), Object.keys(x.updates).sort());
  assert.deepEqual(Object.values(Queries).sort(), Object.keys(x.queries).sort());
});

test('each rejection type of x-tether is a typed error with the schema\'s retryable flag', () => {
  assert.deepEqual(Object.keys(Rejections).sort(), Object.keys(x.rejections).sort());
  for (const [type, { retryable }] of Object.entries(x.rejections) as [string, { retryable: boolean }][]) {
    const failure = ApplicationFailure.create({ type, message: 'refused', nonRetryable: !retryable });
    const err = rejection(new WorkflowUpdateFailedError('update failed', failure));
    assert.ok(err instanceof Rejections[type], `${type} maps to ${Rejections[type].name}`);
    assert.equal(err.type, type);
    assert.equal(err.retryable, retryable);
  }
  assert.ok(rejection(new WorkflowUpdateFailedError('x', ApplicationFailure.create({ type: 'other' }))) === undefined);
  assert.ok(rejection(new Error('tether.ReusedMessageID')) === undefined, 'never matched on message text');
  assert.ok(!(rejection(new WorkflowUpdateFailedError('x', ApplicationFailure.create({ type: 'tether.Busy' }))) instanceof ReusedMessageIDError));
});

test('a message\'s update ID is signals.MessageUpdateID\'s', () => {
  // The values the Go function gives for these inputs.
  assert.equal(messageUpdateId('m-1', 'hello, agent'), 'm-1#ee683a039fc811f2');
  assert.equal(messageUpdateId('\u00e9', 'na\u00efve \u2603'), '\u00e9#090b6d95f29a5638');
});

test('a message ID Tether would refuse is refused before it is sent', () => {
  for (const id of ['', 'has space', 'made:1.2', 'x'.repeat(129), 'tab\t', 'caf\u00e9']) {
    assert.throws(() => validateMessageId(id), InvalidMessageError, JSON.stringify(id));
  }
  validateMessageId('x'.repeat(128));
  validateMessageId('order-42/retry#1');
});
