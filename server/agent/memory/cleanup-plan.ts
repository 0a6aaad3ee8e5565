import type { ChatMessage } from "../llm/messages";
import { estimateMessageTokens } from "../llm/token-estimate";

export interface CleanupPlanInput {
  messages: readonly ChatMessage[];
  /** Messages the current summary already covers (0: none). */
  covered: number;
  /** Tokens the request holds besides the messages from the cut on: system prompt, tools, summary. */
  fixedTokens: number;
  budget: number;
  keepRecent: number;
}

/**
 * Where a cleanup cuts the history: messages before `cut` go into the summary, the rest is sent verbatim.
 * Null when nothing can be cut (no boundary after what is already covered).
 *
 * Rules: a cut never lands on a tool result, so an assistant message's tool calls and their results stay
 * on one side (a provider refuses a result whose call it cannot see); it keeps the latest `keepRecent`
 * messages when that fits the budget, and moves further on, to at least the last boundary, when it does not.
 */
export function planCut(input: CleanupPlanInput): number | null {
  const boundaries = cutBoundaries(input.messages, input.covered);
  if (boundaries.length === 0) return null;
  const wanted = input.messages.length - input.keepRecent;
  // The latest boundary at or before `wanted`, else the first one after it.
  let i = boundaries.findLastIndex((b) => b <= wanted);
  if (i < 0) i = 0;
  const suffix = suffixTokens(input.messages);
  while (i < boundaries.length - 1 && input.fixedTokens + suffix[boundaries[i]] > input.budget) i++;
  return boundaries[i];
}

/** Indices after `covered` where a cut may land: any message but a tool result, never the very first. */
function cutBoundaries(messages: readonly ChatMessage[], covered: number): number[] {
  const out: number[] = [];
  for (let i = Math.max(covered + 1, 1); i < messages.length; i++) if (messages[i].role !== "tool") out.push(i);
  return out;
}

/** suffix[i]: estimated tokens of messages[i..]. */
function suffixTokens(messages: readonly ChatMessage[]): number[] {
  const suffix = new Array<number>(messages.length + 1).fill(0);
  for (let i = messages.length - 1; i >= 0; i--) suffix[i] = suffix[i + 1] + estimateMessageTokens(messages[i]);
  return suffix;
}
