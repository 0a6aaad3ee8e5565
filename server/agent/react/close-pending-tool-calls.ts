import type { TurnState } from "../state/turn-state";

/**
 * Gives every still-pending tool call of the turn an error result in history, so the assistant message
 * that asked for them stays answered (providers reject a tool call without its result). Used when a batch
 * is cut short by a failure or a controlled exit.
 */
export function closePendingToolCalls(turn: TurnState, reason: string): void {
  for (const call of turn.pendingToolCalls) {
    turn.messages.push({ role: "tool", toolCallId: call.id, name: call.name, content: `<not_executed>${reason}</not_executed>`, isError: true });
  }
  turn.pendingToolCalls = [];
  turn.pendingApproval = undefined;
}
