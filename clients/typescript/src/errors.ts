// Typed errors: each update rejection type of x-tether.rejections (the
// Reject* constants of Go's signals package) is one class, so callers match
// with instanceof or on `type`, never on message text.
import { ApplicationFailure, WorkflowUpdateFailedError } from '@temporalio/client';

/** An update the agent refused. `type` is the rejection's ApplicationError type. */
export class TetherRejection extends Error {
  readonly type: string;
  readonly retryable: boolean;
  constructor(type: string, message: string, retryable: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.type = type;
    this.retryable = retryable;
  }
}

/** The input is invalid, or the agent's state cannot take it. */
export class InvalidMessageError extends TetherRejection {}
/** The message ID was already accepted: the message was already delivered. */
export class DuplicateMessageError extends TetherRejection {}
/** The message ID was accepted before with other content: choose another ID. */
export class ReusedMessageIDError extends TetherRejection {}
/** The agent is disposed. */
export class DisposedError extends TetherRejection {}
/** wait-idle on an agent with nothing to wait for. */
export class AlreadyIdleError extends TetherRejection {}
/** The run is continuing as new: send again, the next run answers. */
export class ContinuingError extends TetherRejection {}
/** No tool call waits for that approve, deny or answer. */
export class NoSuchDecisionError extends TetherRejection {}
/** An approval's edited arguments were refused (policy, schema, or a run that predates edits); the call still waits. */
export class InvalidEditError extends TetherRejection {}
/** signals.MaxScheduled messages already wait. */
export class TooManyScheduledError extends TetherRejection {}
/** The inbox or the run's history is over its byte budget: retry after retryAfterMs. */
export class BusyError extends TetherRejection {
  /** How long to wait before sending again (signals.BusyRetryAfter). */
  retryAfterMs = 1000;
}
/** A model switch the worker cannot run. */
export class InvalidSelectionError extends TetherRejection {}
/** A rewind to a turn that has not ended, while a turn is open, or in a run whose rules predate rewind. */
export class InvalidRewindError extends TetherRejection {}
/** A rewind to a turn the agent can no longer rebuild in place (compacted, pruned or rewound past since): fork at that turn instead. */
export class RewindLostError extends TetherRejection {}

type RejectionClass = new (type: string, message: string, retryable: boolean, options?: { cause?: unknown }) => TetherRejection;

/** Rejections maps each rejection type to its class. */
export const Rejections: Readonly<Record<string, RejectionClass>> = {
  'tether.InvalidMessage': InvalidMessageError,
  'tether.DuplicateMessage': DuplicateMessageError,
  'tether.ReusedMessageID': ReusedMessageIDError,
  'tether.Disposed': DisposedError,
  'tether.AlreadyIdle': AlreadyIdleError,
  'tether.Continuing': ContinuingError,
  'tether.NoSuchDecision': NoSuchDecisionError,
  'tether.InvalidEdit': InvalidEditError,
  'tether.TooManyScheduled': TooManyScheduledError,
  'tether.Busy': BusyError,
  'tether.InvalidSelection': InvalidSelectionError,
  'tether.InvalidRewind': InvalidRewindError,
  'tether.RewindLost': RewindLostError,
};

/** An agent with this ID exists or existed: IDs are never reused. */
export class AlreadyExistsError extends Error {
  readonly agentId: string;
  constructor(agentId: string, options?: { cause?: unknown }) {
    super(`agent ${agentId} already exists`, options);
    this.name = 'AlreadyExistsError';
    this.agentId = agentId;
  }
}

/** The agent's workflow closed otherwise than by dispose, or was disposed. */
export class ClosedError extends Error {
  readonly agentId: string;
  readonly status: string;
  constructor(agentId: string, status: string, options?: { cause?: unknown }) {
    super(`agent ${agentId} is closed (${status})`, options);
    this.name = 'ClosedError';
    this.agentId = agentId;
    this.status = status;
  }
}

/**
 * A send whose outcome is unknown: the deadline ended before it was known
 * delivered or refused. Send again with messageId to learn it.
 */
export class DeliveryUnknownError extends Error {
  readonly messageId: string;
  constructor(messageId: string, options?: { cause?: unknown }) {
    super(`delivery of message ${messageId} is unknown: send it again with the same ID`, options);
    this.name = 'DeliveryUnknownError';
    this.messageId = messageId;
  }
}

/** rejection returns err's typed rejection, or undefined when it is none. */
export function rejection(err: unknown): TetherRejection | undefined {
  if (err instanceof TetherRejection) return err;
  const failure = err instanceof WorkflowUpdateFailedError ? err.cause : err;
  if (!(failure instanceof ApplicationFailure) || failure.type == null) return undefined;
  const cls = Rejections[failure.type];
  if (cls === undefined) return undefined;
  return new cls(failure.type, failure.message, !failure.nonRetryable, { cause: err });
}
