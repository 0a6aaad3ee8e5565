import { ChatMessageSchema, ToolCallSchema, type ChatMessage, type ToolCall } from "../llm/messages";
import { ToolResultSchema, type ToolResult } from "../tools/tool-result";

/**
 * The callers' type guards (the spec's `result if isinstance(result, str) else value`). A TRANSFORM
 * stores whatever an extension returned, warning when its kind is wrong; the caller accepts it only if it
 * has the right shape and otherwise falls back to the value it started from, so a misbehaving extension
 * can never hand the model or the user something malformed.
 */
export function stringOr(value: unknown, original: string): string {
  return typeof value === "string" ? value : original;
}

const Messages = ChatMessageSchema.array();

/**
 * `passed`: the copy of `original` the extensions were given. When they handed it back as it was (the
 * usual case), `original` is returned without validating the whole history again.
 */
export function messagesOr(value: unknown, original: ChatMessage[], passed?: ChatMessage[]): ChatMessage[] {
  if (passed && value === passed && sameMessages(passed, original)) return original;
  const parsed = Messages.safeParse(value);
  return parsed.success ? parsed.data : original;
}

function sameMessages(a: readonly ChatMessage[], b: readonly ChatMessage[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Record<string, unknown>;
    const y = b[i] as Record<string, unknown>;
    const keys = Object.keys(x);
    if (keys.length !== Object.keys(y).length) return false;
    for (const k of keys) {
      if (k === "toolCalls" ? JSON.stringify(x[k]) !== JSON.stringify(y[k]) : x[k] !== y[k]) return false;
    }
  }
  return true;
}

/** A tool result is accepted only for the same call: an extension may rewrite it, not swap it. */
export function toolResultOr(value: unknown, original: ToolResult): ToolResult {
  const parsed = ToolResultSchema.safeParse(value);
  if (!parsed.success || parsed.data.callId !== original.callId) return original;
  return parsed.data;
}

const ToolCalls = ToolCallSchema.array();

/** Rewritten tool calls, accepted only as valid calls; the original list (same object) otherwise. */
export function toolCallsOr(value: unknown, original: ToolCall[]): ToolCall[] {
  if (value === original) return original;
  const parsed = ToolCalls.safeParse(value);
  if (!parsed.success || JSON.stringify(parsed.data) === JSON.stringify(original)) return original;
  return parsed.data;
}

/** The reason a vetoing extension gave (`ctx.data.reason`), when it is a string. */
export function vetoReason(ctx: { get(key: string): unknown }): string | undefined {
  const reason = ctx.get("reason");
  return typeof reason === "string" && reason ? reason : undefined;
}
