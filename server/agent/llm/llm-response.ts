import type { FinishReason } from "./stream-events";
import type { ToolCall } from "./messages";
import type { TokenUsage } from "./token-usage";

/** A completed LLM response, assembled from the event stream. */
export interface LlmResponse {
  content: string;
  reasoning: string;
  toolCalls: ToolCall[];
  usage: TokenUsage;
  finishReason: FinishReason;
}
