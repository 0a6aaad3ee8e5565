import { z } from "zod";

/**
 * Typed token accounting for one LLM response (GenAI semconv: input / output / reasoning / cache).
 * `estimated: true` marks counts Modex estimated because the provider reported none (a stopped stream, a
 * server that never sends usage: usage-estimate.ts); absent, the counts are the provider's. A sum with
 * any estimated part is marked estimated (addUsage), so an estimate never passes for a real count.
 */
export const TokenUsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  reasoningTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative(),
  cacheCreationTokens: z.number().int().nonnegative(),
  estimated: z.literal(true).optional(),
});
export type TokenUsage = z.infer<typeof TokenUsageSchema>;

export const ZERO_USAGE: TokenUsage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
  cacheReadTokens: 0,
  cacheCreationTokens: 0,
});

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheCreationTokens: a.cacheCreationTokens + b.cacheCreationTokens,
    ...(a.estimated || b.estimated ? { estimated: true as const } : {}),
  };
}
