// The peer subject: the workload's turn on Temporal's own OpenAI Agents
// integration. A signal brings each prompt; the runner then calls the
// model (an Activity the plugin registers), the tool (an Activity, as
// activityAsTool does it) and the model again. Each turn starts from the
// prompt alone, as the floor's does.
import { Agent } from '@openai/agents-core';
import { TemporalOpenAIRunner, activityAsTool } from '@temporalio/openai-agents/workflow';
import { condition, defineSignal, setHandler } from '@temporalio/workflow';
import type * as activities from './activities';

export const turnSignal = defineSignal<[string]>('turn');

const fetchTool = activityAsTool<typeof activities.fetch>(
  {
    name: 'fetch',
    description: 'Fetch 2 KB.',
    parameters: {
      type: 'object',
      properties: {},
      required: [],
      additionalProperties: false,
    },
  },
  { startToCloseTimeout: '1 minute' },
);

export async function peerAgent(): Promise<void> {
  const prompts: string[] = [];
  setHandler(turnSignal, (p: string) => {
    prompts.push(p);
  });
  const agent = new Agent({ name: 'bench', instructions: 'Use fetch, then answer.', model: 'bench', tools: [fetchTool] });
  const runner = new TemporalOpenAIRunner();
  for (;;) {
    await condition(() => prompts.length > 0);
    await runner.run(agent, prompts.shift()!);
  }
}
