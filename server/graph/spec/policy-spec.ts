import { z } from "zod";
import type { NodePolicy } from "../node-policy";

/**
 * The longest wait a timer can hold (2^31 - 1 ms, 24.8 days): Node.js fires a longer `setTimeout` after
 * 1 ms, so a longer timeout would fail its node at once and a longer backoff would not wait at all.
 */
export const MAX_TIMER_MS = 2_147_483_647;
const timerMs = (what: string) => z.number().int().min(0).max(MAX_TIMER_MS, `${what} is at most ${MAX_TIMER_MS} ms (24.8 days)`);

/** A node's `retry` in a spec: how many executions in all, and how long to wait between them. */
export const RetrySpecSchema = z
  .object({
    max_attempts: z.number().int().min(1).max(100).describe("Executions in all, the first included (1: no retry)."),
    initial_interval_ms: timerMs("initial_interval_ms").default(1_000).describe("Wait before the second attempt, in ms (default 1,000)."),
    backoff: z.number().min(1).default(2).describe("Each wait is the last one times this (default 2)."),
    max_interval_ms: timerMs("max_interval_ms").default(60_000).describe("Longest wait between attempts, in ms (default 60,000)."),
    retry_on: z
      .array(z.string().min(1))
      .optional()
      .describe('Retry only errors whose message contains one of these (e.g. "timed out", "ECONNRESET"); default: every error.'),
  })
  .strict()
  .describe("Retry a failing node: a new attempt (its own invocation) with the same inputs after a backoff.");

export const TimeoutSpecSchema = timerMs("timeout_ms")
  .positive()
  .describe("Stop waiting for the node after this many ms: it fails with a timeout (which `retry` may retry).");

/** Spec-level `defaults`: the policies of every node that sets none of its own. */
export const PolicyDefaultsSchema = z
  .object({ retry: RetrySpecSchema.optional(), timeout_ms: TimeoutSpecSchema.optional() })
  .strict()
  .describe("Defaults for every node (a node's own `retry` / `timeout_ms` replaces them).");

type RetrySpec = z.output<typeof RetrySpecSchema>;

/** The engine's NodePolicy for a node spec, its own fields first, then the spec's defaults; none: undefined. */
export function nodePolicyOf(
  node: { retry?: RetrySpec; timeout_ms?: number },
  defaults: { retry?: RetrySpec; timeout_ms?: number } | undefined,
): NodePolicy | undefined {
  const retry = node.retry ?? defaults?.retry;
  const timeoutMs = node.timeout_ms ?? defaults?.timeout_ms;
  if (!retry && timeoutMs === undefined) return undefined;
  return {
    timeoutMs,
    retry: retry && {
      maxAttempts: retry.max_attempts,
      initialIntervalMs: retry.initial_interval_ms,
      backoffFactor: retry.backoff,
      maxIntervalMs: retry.max_interval_ms,
      retryOn: retry.retry_on,
    },
  };
}
