import { z } from "zod";
import { createHash } from "node:crypto";
import type { Awaitable } from "../../graph/awaitable";
import type { ChatMessage } from "../llm/messages";

/**
 * What stands in the model's context for a chat's older messages. The history itself is kept whole (the
 * chat shows it, and a later cleanup summarizes from it); the summary replaces its first `coveredMessages`
 * messages in every request until the next cleanup moves the line on.
 */
export const ContextSummarySchema = z.object({
  /** The summary (consolidated), or the prune marker, the model reads in place of the covered messages. */
  text: z.string(),
  /** How many leading messages of the session's history the summary covers. */
  coveredMessages: z.number().int().nonnegative(),
  /** A digest of those messages: a history that changed under them (a turn cut off and stored otherwise) voids the summary. */
  digest: z.string(),
  /** How many of them this cleanup took in (the earlier ones were in the previous summary). */
  prunedMessages: z.number().int().nonnegative(),
  /** The estimated request tokens before and after the cleanup that wrote it. */
  tokensBefore: z.number().int().nonnegative(),
  tokensAfter: z.number().int().nonnegative(),
  /** `consolidated`: a model wrote `text`; `pruned`: the messages were dropped (consolidate off, or the call failed). */
  mode: z.enum(["consolidated", "pruned"]),
  at: z.number(),
});
export type ContextSummary = z.infer<typeof ContextSummarySchema>;

/** Where a session's summary is kept durably, beside its messages (the chat stores). */
export interface ContextSummaryStore {
  loadSummary(sessionId: string): Awaitable<ContextSummary | null>;
  saveSummary(sessionId: string, summary: ContextSummary): Awaitable<void>;
}

/** The stored summary, or null when the stored value is not one (written by a newer format, or damaged). */
export function parseSummary(value: unknown): ContextSummary | null {
  const parsed = ContextSummarySchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The digest of a history's first `count` messages (ContextSummary.digest). */
export function historyDigest(messages: readonly ChatMessage[], count: number): string {
  const hash = createHash("sha256");
  for (let i = 0; i < count; i++) hash.update(JSON.stringify(messages[i])).update("\n");
  return hash.digest("hex").slice(0, 32);
}

/** The summary if it still fits the history: it covers no more messages than there are, and the same ones. */
export function summaryFor(summary: ContextSummary | null, messages: readonly ChatMessage[]): ContextSummary | null {
  if (!summary || summary.coveredMessages > messages.length) return null;
  return historyDigest(messages, summary.coveredMessages) === summary.digest ? summary : null;
}

/** Summaries in this process's memory (agent nodes without a database: unit tests, library use). */
export class InMemoryContextSummaryStore implements ContextSummaryStore {
  private readonly summaries = new Map<string, ContextSummary>();

  loadSummary(sessionId: string): ContextSummary | null {
    return this.summaries.get(sessionId) ?? null;
  }

  saveSummary(sessionId: string, summary: ContextSummary): void {
    this.summaries.set(sessionId, summary);
  }
}
