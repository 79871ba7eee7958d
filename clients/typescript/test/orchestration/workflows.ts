// A Temporal workflow in TypeScript that orchestrates a Tether agent: it
// starts the agent as its child, sends it a followup, waits for the child's
// report of the settled turn and cancels it.
import { CancellationScope, ChildWorkflowHandle, condition, defineSignal, isCancellation, setHandler, startChild, workflowInfo } from '@temporalio/workflow';
import type { SignalsAgentInput, SignalsAgentResult, SignalsChildReport } from '../../src/schema';

/** Tether's agent workflow, as a child of this one. */
type AgentWorkflow = (input: SignalsAgentInput) => Promise<SignalsAgentResult>;

/** The signal a Tether child reports its settled turns and its end with. */
export const childReport = defineSignal<[SignalsChildReport]>('child-report');

export interface Asked {
  agentId: string;
  answer: string;
  /** How the agent's workflow ended once canceled. */
  ended: string;
}

/** ask starts a Tether agent, asks it question, returns its answer and cancels it. */
export async function ask(question: string): Promise<Asked> {
  const reports: SignalsChildReport[] = [];
  setHandler(childReport, (r) => { reports.push(r); });
  const parent = workflowInfo().workflowId;
  const agentId = `${parent}-agent`;
  const input: SignalsAgentInput = { options: { hooks: null }, parent: { id: parent, depth: 1 } };
  const scope = new CancellationScope();
  const child: ChildWorkflowHandle<AgentWorkflow> = await scope.run(() =>
    startChild<AgentWorkflow>('tether.Agent', { workflowId: agentId, taskQueue: 'tether', args: [input] }));
  await child.signal('followup', { id: 'question-1', content: question });
  await condition(() => reports.some((r) => r.text));
  const answer = reports.find((r) => r.text)!.text!;
  scope.cancel();
  let ended = 'completed';
  try {
    await child.result();
  } catch (err) {
    ended = isCancellation(err) ? 'canceled' : String(err);
  }
  return { agentId, answer, ended };
}
