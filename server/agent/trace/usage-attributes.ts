import type { TokenUsage } from "../llm/token-usage";
import { GenAI } from "./genai-attributes";

/** Typed TokenUsage as GenAI usage attributes. */
export function usageAttributes(usage: TokenUsage): Record<string, number> {
  return {
    [GenAI.USAGE_INPUT_TOKENS]: usage.inputTokens,
    [GenAI.USAGE_OUTPUT_TOKENS]: usage.outputTokens,
    [GenAI.USAGE_REASONING_TOKENS]: usage.reasoningTokens,
    [GenAI.USAGE_CACHE_READ_TOKENS]: usage.cacheReadTokens,
    [GenAI.USAGE_CACHE_CREATION_TOKENS]: usage.cacheCreationTokens,
  };
}
