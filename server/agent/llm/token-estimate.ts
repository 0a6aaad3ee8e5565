import type { ChatMessage, ToolSpec } from "./messages";

/**
 * A cheap token count: about four characters a token (OpenAI's and Anthropic's rule of thumb for English
 * and code), plus a few tokens of framing per message. It is an estimate — a cleanup decision, not a
 * bill — so it errs high; the provider's reported usage corrects it when there is one (context-memory.ts).
 */
const CHARS_PER_TOKEN = 4;
const MESSAGE_OVERHEAD_TOKENS = 4;

export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function estimateMessageTokens(message: ChatMessage): number {
  let chars = message.content.length;
  if (message.role === "assistant") for (const c of message.toolCalls ?? []) chars += c.name.length + c.arguments.length + c.id.length;
  if (message.role === "tool") chars += message.name.length + message.toolCallId.length;
  return MESSAGE_OVERHEAD_TOKENS + Math.ceil(chars / CHARS_PER_TOKEN);
}

export function estimateMessagesTokens(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const m of messages) total += estimateMessageTokens(m);
  return total;
}

export function estimateToolsTokens(tools: readonly ToolSpec[]): number {
  let total = 0;
  for (const t of tools) total += estimateTextTokens(t.name + t.description + JSON.stringify(t.parameters));
  return total;
}
