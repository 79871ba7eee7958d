// TetherClient starts agents and hands out AgentHandles; it is the
// TypeScript counterpart of the Go client's agent.Client.
import {
  Client, Connection, DataConverter, WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy, WorkflowIdReusePolicy,
} from '@temporalio/client';
import { SearchAttributePair, SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';
import { AgentHandle } from './handle';
import { AlreadyExistsError } from './errors';
import { newMessageId, validateMessageId } from './message';
import { AGENT_WORKFLOW, Attrs, DEFAULT_TASK_QUEUE, modelLabel } from './names';
import type { SignalsAgentInput, SignalsAgentOptions } from './schema';

export interface ConnectOptions {
  /** The Temporal frontend, host:port (default localhost:7233). */
  address?: string;
  /** The Temporal namespace (default "default"). */
  namespace?: string;
  /** The worker's task queue (default "tether"). */
  taskQueue?: string;
  /**
   * The data converter, e.g. `{ payloadCodecs: [new TetherCodec(...)] }`
   * for a worker with codec keys.
   */
  dataConverter?: DataConverter;
  /**
   * Start agents without Tether's search attributes, for a namespace that
   * has none registered (workers run with --no-search-attributes).
   */
  noSearchAttributes?: boolean;
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
  private readonly noAttrs: boolean;

  constructor(temporal: Client, options: { taskQueue?: string; noSearchAttributes?: boolean } = {}) {
    this.temporal = temporal;
    this.taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
    this.noAttrs = options.noSearchAttributes ?? false;
  }

  /** connect dials Temporal and returns a client; close() closes the connection. */
  static async connect(options: ConnectOptions = {}): Promise<TetherClient> {
    const connection = await Connection.connect({ address: options.address ?? 'localhost:7233' });
    const temporal = new Client({ connection, namespace: options.namespace ?? 'default', dataConverter: options.dataConverter });
    return new TetherClient(temporal, { taskQueue: options.taskQueue, noSearchAttributes: options.noSearchAttributes });
  }

  /** close closes the Temporal connection. */
  async close(): Promise<void> {
    await this.temporal.connection.close();
  }

  /**
   * create starts a new agent the way the Go client does: an ID is never
   * used again, even after its agent was disposed (REJECT_DUPLICATE), and a
   * second start while it runs fails (FAIL). Either is AlreadyExistsError.
   * It sets the search attributes the Go client sets (idle, turn 0, the
   * model, the parent), so the agent is listed by them before its first
   * workflow task, and the Go client's summary ("agent <provider/model>").
   */
  async create(o: CreateOptions = {}): Promise<AgentHandle> {
    const id = o.id ?? `agent-${newMessageId()}`;
    const options = o.options ?? { hooks: null };
    const input: SignalsAgentInput = { options };
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
        typedSearchAttributes: this.startAttributes(options),
        staticSummary: `agent ${modelLabel(options)}`,
      });
      return new AgentHandle(this.temporal, id, wf.firstExecutionRunId);
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) throw new AlreadyExistsError(id, { cause: err });
      throw err;
    }
  }

  /** startAttributes are a new agent's search attributes (agent/attrs.go): none with noSearchAttributes. */
  private startAttributes(options: SignalsAgentOptions): SearchAttributePair[] {
    if (this.noAttrs) return [];
    const pairs: SearchAttributePair[] = [
      { key: defineSearchAttributeKey(Attrs.status, SearchAttributeType.KEYWORD), value: 'idle' },
      { key: defineSearchAttributeKey(Attrs.turn, SearchAttributeType.INT), value: 0 },
      { key: defineSearchAttributeKey(Attrs.model, SearchAttributeType.KEYWORD), value: modelLabel(options) },
    ];
    if (options.parent) pairs.push({ key: defineSearchAttributeKey(Attrs.parent, SearchAttributeType.KEYWORD), value: options.parent });
    return pairs;
  }

  /** agent returns a handle to the agent with this ID, without asking the server. */
  agent(id: string): AgentHandle {
    return new AgentHandle(this.temporal, id);
  }
}
