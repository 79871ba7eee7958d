// Cross-language orchestration: a TypeScript Temporal workflow (run by a
// TypeScript worker here) drives a Tether agent as its child workflow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { ask } from './orchestration/workflows';

const address = process.env.TETHER_ADDRESS;
const namespace = process.env.TETHER_NAMESPACE ?? 'default';
Runtime.install({ logger: new DefaultLogger('WARN') });

const skip = address ? false : 'TETHER_ADDRESS is not set: run `go test ./clients/typescript/` to start a live Tether';

test('a TypeScript workflow starts a Tether agent as its child, asks it, gets the answer and cancels it', { skip, timeout: 120_000 }, async () => {
  const taskQueue = `ts-orchestrator-${process.pid}`;
  const native = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection: native, namespace, taskQueue, workflowsPath: path.join(__dirname, 'orchestration', 'workflows.js'),
  });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace });
  try {
    const got = await worker.runUntil(client.workflow.execute(ask, {
      taskQueue, workflowId: `orchestrator-${process.pid}`, args: ['/say forty-two'],
    }));
    assert.equal(got.answer, 'forty-two');
    assert.equal(got.ended, 'canceled');
    const d = await client.workflow.getHandle(got.agentId).describe();
    assert.equal(d.status.name, 'CANCELLED');
    assert.equal(d.parentExecution?.workflowId, `orchestrator-${process.pid}`);
  } finally {
    await connection.close();
    await native.close();
  }
});
