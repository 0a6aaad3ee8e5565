import type { AgentControlError } from "../errors";
import { StopReason } from "../stop-reason";
import type { AgentResult } from "../state/agent-result";
import type { TurnState } from "../state/turn-state";

const DEFAULT_CONTENT = {
  [StopReason.CANCELLED]: "The turn was cancelled.",
  [StopReason.TIMEOUT]: "The turn timed out.",
  [StopReason.POLICY_VIOLATION]: "The turn was stopped by a policy.",
  [StopReason.LOOP_DETECTED]: "The turn was stopped because the agent was repeating itself.",
} as const satisfies Partial<Record<StopReason, string>>;

/**
 * The one handler that turns any AgentControlError into the turn's AgentResult: its stop reason, and
 * its user-facing content or a default for the reason.
 */
export function renderControlExit(error: AgentControlError, turn: TurnState): AgentResult {
  const fallback = (DEFAULT_CONTENT as Partial<Record<StopReason, string>>)[error.stopReason] ?? error.message;
  return {
    stopReason: error.stopReason,
    content: error.userContent ?? fallback,
    iterations: turn.iteration,
    turnAttempts: turn.turnAttempt,
    usage: turn.usage,
    error: { code: error.code, message: error.message },
  };
}
