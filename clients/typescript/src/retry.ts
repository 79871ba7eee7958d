// The Go client's retry rules (docs/clients.md, "What the Go client
// retries"), as far as this client follows them.
import { isGrpcServiceError, QueryNotRegisteredError, ServiceError } from '@temporalio/client';

// gRPC status codes (grpc/status.proto), so as not to depend on grpc-js.
const status = {
  CANCELLED: 1,
  DEADLINE_EXCEEDED: 4,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  UNAVAILABLE: 14,
} as const;

/** Sends: backoff from 50 ms doubling to 2 s, until delivered, refused or the deadline. */
export const SEND_MIN_PAUSE_MS = 50;
export const SEND_MAX_PAUSE_MS = 2000;
/** The deadline of a send with none of its own. */
export const SEND_DEADLINE_MS = 60_000;
/** Queries before the run is ready: from 10 ms doubling to 250 ms, for up to 15 s. */
export const QUERY_MIN_PAUSE_MS = 10;
export const QUERY_MAX_PAUSE_MS = 250;
export const QUERY_NOT_READY_MS = 15_000;

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** grpcCode is the gRPC status code under err, or undefined. */
export function grpcCode(err: unknown): number | undefined {
  for (let e: unknown = err; e != null; e = (e as { cause?: unknown }).cause) {
    if (isGrpcServiceError(e)) return e.code;
    if (!(e instanceof Error)) return undefined;
  }
  return undefined;
}

/**
 * queryNotReady reports an answer that says the run cannot answer yet: its
 * first workflow task has not registered the query, or the server says the
 * workflow is not ready or gave up waiting for a worker.
 */
export function queryNotReady(err: unknown, name: string): boolean {
  if (err instanceof QueryNotRegisteredError) return err.message.includes(`unknown queryType ${name}.`);
  if (!(err instanceof ServiceError)) return false;
  const code = grpcCode(err);
  return code === status.FAILED_PRECONDITION || code === status.DEADLINE_EXCEEDED || code === status.UNAVAILABLE;
}

/** transientSend reports a failed update attempt worth sending again under the same ID. */
export function transientSend(err: unknown): boolean {
  const code = grpcCode(err);
  if (code === status.RESOURCE_EXHAUSTED) return !String((err as Error).message).includes('message larger than max');
  return code === status.FAILED_PRECONDITION || code === status.UNAVAILABLE || code === status.ABORTED ||
    code === status.DEADLINE_EXCEEDED || code === status.CANCELLED;
}
