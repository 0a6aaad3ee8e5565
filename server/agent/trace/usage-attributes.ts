import type { TokenUsage } from "../llm/token-usage";
import { GenAI, Modex } from "./genai-attributes";

/** Typed TokenUsage as GenAI usage attributes, plus `modex.usage.estimated` when the counts are an estimate. */
export function usageAttributes(usage: TokenUsage): Record<string, number | boolean> {
  return {
    [GenAI.USAGE_INPUT_TOKENS]: usage.inputTokens,
    [GenAI.USAGE_OUTPUT_TOKENS]: usage.outputTokens,
    [GenAI.USAGE_REASONING_TOKENS]: usage.reasoningTokens,
    [GenAI.USAGE_CACHE_READ_TOKENS]: usage.cacheReadTokens,
    [GenAI.USAGE_CACHE_CREATION_TOKENS]: usage.cacheCreationTokens,
    ...(usage.estimated ? { [Modex.USAGE_ESTIMATED]: true } : {}),
  };
}
