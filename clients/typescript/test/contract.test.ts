// The client against the wire contract, no server needed: the generated
// types, the durable names and the rejections are the schema's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ApplicationFailure, WorkflowUpdateFailedError } from '@temporalio/client';
import {
  AGENT_WORKFLOW, DEFAULT_TASK_QUEUE, InvalidMessageError, Queries, Rejections, ReusedMessageIDError, Signals, Updates,
  messageUpdateId, rejection, validateMessageId,
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
