// The peer's worker: a TypeScript worker with @temporalio/openai-agents'
// plugin, its model provider the Chat Completions API at MODEL_BASE_URL (the
// Go benchmark's fake of the workload), on TASK_QUEUE of TEMPORAL_ADDRESS.
// It prints "ready" once polling, and runs until stdin closes, so that it
// ends with the benchmark that started it.
import { setTracingDisabled } from '@openai/agents-core';
import { OpenAIProvider } from '@openai/agents-openai';
import { OpenAIAgentsPlugin } from '@temporalio/openai-agents';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import * as activities from './activities';

function required(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

async function main(): Promise<void> {
  setTracingDisabled(true); // no trace export: the benchmark reaches nothing off this machine
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address: required('TEMPORAL_ADDRESS') });
  const plugin = new OpenAIAgentsPlugin({
    modelProvider: new OpenAIProvider({ apiKey: 'bench', baseURL: required('MODEL_BASE_URL'), useResponses: false }),
    modelParams: { startToCloseTimeout: '1 minute' },
  });
  const worker = await Worker.create({
    connection,
    namespace: process.env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: required('TASK_QUEUE'),
    workflowsPath: require.resolve('./workflows'),
    activities,
    plugins: [plugin],
  });
  process.stdin.on('end', () => worker.shutdown());
  process.stdin.resume();
  const running = worker.run();
  console.log('ready');
  await running;
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
