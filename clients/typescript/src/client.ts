// TetherClient starts agents and hands out AgentHandles; it is the
// TypeScript counterpart of the Go client's agent.Client.
import { Client, Connection, WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import { AgentHandle } from './handle';
import { AlreadyExistsError } from './errors';
import { newMessageId, validateMessageId } from './message';
import { AGENT_WORKFLOW, DEFAULT_TASK_QUEUE } from './names';
import type { SignalsAgentInput, SignalsAgentOptions } from './schema';

export interface ConnectOptions {
  /** The Temporal frontend, host:port (default localhost:7233). */
  address?: string;
  /** The Temporal namespace (default "default"). */
  namespace?: string;
  /** The worker's task queue (default "tether"). */
  taskQueue?: string;
}

export interface CreateOptions {
  /** The agent's ID, its workflow ID; a fresh "agent-<hex>" when absent. */
  id?: string;
  /** The agent's options; the worker's defaults when absent. */
  options?: SignalsAgentOptions;
  /** The agent's first followup, taken before anything else. */
  first?: string;
}

export class TetherClient {
  readonly temporal: Client;
  readonly taskQueue: string;

  constructor(temporal: Client, options: { taskQueue?: string } = {}) {
    this.temporal = temporal;
    this.taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
  }

  /** connect dials Temporal and returns a client; close() closes the connection. */
  static async connect(options: ConnectOptions = {}): Promise<TetherClient> {
    const connection = await Connection.connect({ address: options.address ?? 'localhost:7233' });
    const temporal = new Client({ connection, namespace: options.namespace ?? 'default' });
    return new TetherClient(temporal, { taskQueue: options.taskQueue });
  }

  /** close closes the Temporal connection. */
  async close(): Promise<void> {
    await this.temporal.connection.close();
  }

  /**
   * create starts a new agent the way the Go client does: an ID is never
   * used again, even after its agent was disposed (REJECT_DUPLICATE), and a
   * second start while it runs fails (FAIL). Either is AlreadyExistsError.
   */
  async create(o: CreateOptions = {}): Promise<AgentHandle> {
    const id = o.id ?? `agent-${newMessageId()}`;
    const input: SignalsAgentInput = { options: o.options ?? { hooks: null } };
    if (o.first !== undefined) {
      const first = { id: newMessageId(), content: o.first };
      validateMessageId(first.id);
      input.first = first;
    }
    try {
      const wf = await this.temporal.workflow.start(AGENT_WORKFLOW, {
        workflowId: id,
        taskQueue: this.taskQueue,
        args: [input],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
      });
      return new AgentHandle(this.temporal, id, wf.firstExecutionRunId);
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) throw new AlreadyExistsError(id, { cause: err });
      throw err;
    }
  }

  /** agent returns a handle to the agent with this ID, without asking the server. */
  agent(id: string): AgentHandle {
    return new AgentHandle(this.temporal, id);
  }
}
