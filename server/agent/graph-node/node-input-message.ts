import type { DeliveredInput } from "../../graph/node";
import { isGraphPayload } from "../../graph/payload";

/**
 * The user message an agent node's turn starts from: one `[Input from graph node 'X']` block per
 * upstream delivery, so the agent knows where each piece of work came from.
 */
export function nodeInputMessage(input: readonly DeliveredInput[]): string {
  if (input.length === 0) return "[No input was delivered to this node]";
  return input.map((row) => `[Input from graph node '${row.sourceNode}']\n${render(row.content)}`).join("\n\n");
}

function render(content: unknown): string {
  const value = isGraphPayload(content) ? content.content : content;
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 2) ?? String(value);
}
