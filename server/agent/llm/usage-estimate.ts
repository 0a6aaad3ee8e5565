import type { LlmRequest } from "./messages";
import type { PartialOutput } from "./stream-events";
import { estimateMessagesTokens, estimateTextTokens, estimateToolsTokens } from "./token-estimate";
import type { TokenUsage } from "./token-usage";

/**
 * A model call's tokens when the provider reported none: OpenAI-compatible servers send usage only in a
 * stream's last chunk, which a stop cuts off, and some servers never send it. Input from the request's
 * messages and tool definitions, output from what streamed (text, reasoning, completed tool calls' names
 * and arguments), at about four characters a token (token-estimate.ts; no tokenizer). Marked
 * `estimated: true` so it is shown and traced as an estimate, never as the provider's count.
 */
export function estimateUsage(request: Pick<LlmRequest, "messages" | "tools">, output: PartialOutput): TokenUsage {
  const toolCalls = output.toolCalls.reduce((text, c) => text + c.name + c.arguments, "");
  const reasoningTokens = estimateTextTokens(output.reasoning);
  return {
    inputTokens: estimateMessagesTokens(request.messages) + estimateToolsTokens(request.tools),
    outputTokens: estimateTextTokens(output.content) + reasoningTokens + estimateTextTokens(toolCalls),
    // Reasoning tokens are part of the output tokens, as OpenAI counts them.
    reasoningTokens,
    cacheReadTokens: 0,
    cacheCreationTokens: 0,
    estimated: true,
  };
}

/** Whether a stream produced anything: a call cut or failed before its first token is not estimated (the model may never have read it). */
export function producedOutput(output: PartialOutput): boolean {
  return output.content !== "" || output.reasoning !== "" || output.toolCalls.length > 0;
}
