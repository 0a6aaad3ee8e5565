import type { ToolCall } from "./messages";
import type { TokenUsage } from "./token-usage";

/**
 * The closed LLM event stream. Append-only: a new variant is added to the union, an existing one is
 * never reshaped. Every stream ends with exactly one terminal event, `Finish` or `StreamFailure`
 * (`ensureSingleTerminal` enforces it). Consumers switch exhaustively on `type`.
 */
export interface TextDelta {
  type: "text_delta";
  text: string;
}
export interface ReasoningDelta {
  type: "reasoning_delta";
  text: string;
}
export interface ToolCallComplete {
  type: "tool_call_complete";
  call: ToolCall;
}
export interface UsageSnapshot {
  type: "usage_snapshot";
  usage: TokenUsage;
}

export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | "other";

export interface Finish {
  type: "finish";
  reason: FinishReason;
}

export interface PartialOutput {
  content: string;
  reasoning: string;
  toolCalls: ToolCall[];
}

export interface StreamFailure {
  type: "stream_failure";
  error: { code: string; message: string };
  /** Whatever the stream produced before it failed. */
  partial: PartialOutput;
}

export type LLMStreamEvent = TextDelta | ReasoningDelta | ToolCallComplete | UsageSnapshot | Finish | StreamFailure;
export type TerminalEvent = Finish | StreamFailure;

export function isTerminalEvent(event: LLMStreamEvent): event is TerminalEvent {
  return event.type === "finish" || event.type === "stream_failure";
}

export const EMPTY_PARTIAL: PartialOutput = Object.freeze({ content: "", reasoning: "", toolCalls: [] });

export function streamFailure(code: string, message: string, partial: PartialOutput = EMPTY_PARTIAL): StreamFailure {
  return { type: "stream_failure", error: { code, message }, partial };
}
