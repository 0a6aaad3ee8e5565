import { isGraphBubbleUp } from "./errors";

/**
 * How a node's failures are retried: `maxAttempts` executions in all (the first included), waiting
 * `initialIntervalMs`, then each wait `backoffFactor` times the last, at most `maxIntervalMs`. Only
 * errors whose message contains one of `retryOn` are retried when it is given (a timeout's message
 * says "timed out"). Interrupts, pauses and stops are never failures, so never retried.
 */
export interface RetryPolicy {
  maxAttempts: number;
  initialIntervalMs: number;
  backoffFactor: number;
  maxIntervalMs: number;
  retryOn?: readonly string[];
}

/**
 * A retry a node still owes when its run ended during the backoff (a restart, a pause): `attempt` failed,
 * and the next one is due at `dueAt` (ms since the epoch). Whoever runs the instance next hands it to
 * the engine (`ContextOptions.owedRetries`), which waits out the rest and runs attempt `attempt + 1`.
 */
export interface OwedRetry {
  attempt: number;
  dueAt: number;
}

/** A node's run-time policies (from a spec's `retry` and `timeout_ms`, or its `defaults`). */
export interface NodePolicy {
  retry?: RetryPolicy;
  /** The engine stops waiting for an asynchronous execution after this long: a NodeTimeoutError. */
  timeoutMs?: number;
}

/** The wait before attempt `attempt + 1`, or null when `error` after attempt `attempt` is final. */
export function retryDelay(policy: RetryPolicy | undefined, attempt: number, error: unknown): number | null {
  if (!policy || attempt >= policy.maxAttempts || isGraphBubbleUp(error)) return null;
  if (policy.retryOn && policy.retryOn.length > 0) {
    const message = error instanceof Error ? error.message : String(error);
    if (!policy.retryOn.some((s) => message.includes(s))) return null;
  }
  return Math.min(policy.maxIntervalMs, policy.initialIntervalMs * policy.backoffFactor ** (attempt - 1));
}
