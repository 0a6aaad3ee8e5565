import type { EngineEvent } from "@/server/graph/events";
import type { OwedRetry } from "@/server/graph/node-policy";
import type { GraphInstanceRecord } from "@/server/graph/persistence/records";

/**
 * The retry backoffs an instance is in, by node, kept in its attrs so a restart (or a pause) during a
 * backoff does not cut the wait short: the next run waits out the rest and counts attempts on from
 * there (the engine's `owedRetries`). Written when a node fails with a retry to come (after the
 * failure's own commit) and cleared when the node starts again or fails for good: a crash between the
 * failure's commit and this write retries at once, as before.
 */
export const RETRY_BACKOFFS_ATTR = "retry_backoffs";

export function owedRetriesOf(instance: Pick<GraphInstanceRecord, "attrs">): Map<string, OwedRetry> {
  const value = instance.attrs[RETRY_BACKOFFS_ATTR];
  const out = new Map<string, OwedRetry>();
  if (!value || typeof value !== "object") return out;
  for (const [node, r] of Object.entries(value as Record<string, Partial<OwedRetry>>)) {
    if (r && typeof r.attempt === "number" && typeof r.dueAt === "number") out.set(node, { attempt: r.attempt, dueAt: r.dueAt });
  }
  return out;
}

/** One run's view of its instance's backoffs: which attrs an engine event changes. */
export class RetryBackoffs {
  constructor(private readonly owed: Map<string, OwedRetry>) {}

  /** The attrs to save before `event` is announced, or null when it changes no backoff. */
  attrsFor(event: EngineEvent, now = Date.now()): Record<string, unknown> | null {
    if (event.type === "node_failed" && event.retryInMs !== undefined && event.attempt !== undefined) {
      this.owed.set(event.node, { attempt: event.attempt, dueAt: now + event.retryInMs });
      return this.attrs();
    }
    if ((event.type === "node_started" || event.type === "node_failed") && this.owed.has(event.node)) {
      this.owed.delete(event.node);
      return this.attrs();
    }
    return null;
  }

  private attrs(): Record<string, unknown> {
    return { [RETRY_BACKOFFS_ATTR]: this.owed.size > 0 ? Object.fromEntries(this.owed) : null };
  }
}
