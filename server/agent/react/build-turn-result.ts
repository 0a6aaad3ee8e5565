import { StopReason } from "../stop-reason";
import type { AgentResult } from "../state/agent-result";
import type { TurnState } from "../state/turn-state";

/** AFTER's preliminary result, from turn state: the error, max-iteration and normal branches. */
export function buildTurnResult(turn: TurnState): AgentResult {
  const base = { iterations: turn.iteration, turnAttempts: turn.turnAttempt, usage: turn.usage };
  if (turn.failure) {
    const what = turn.failure.node === "TOOL" ? "Running the tools failed" : "The model call failed";
    return { ...base, stopReason: StopReason.ERROR, content: `${what}: ${turn.failure.message}`, error: { code: turn.failure.code, message: turn.failure.message } };
  }
  const content = lastAssistantContent(turn);
  if (turn.iterationLimitHit) {
    return { ...base, stopReason: StopReason.MAX_ITERATIONS, content: content || `Stopped after ${turn.maxIterations} iterations.` };
  }
  return { ...base, stopReason: StopReason.COMPLETED, content };
}

function lastAssistantContent(turn: TurnState): string {
  for (let i = turn.messages.length - 1; i >= 0; i--) {
    const m = turn.messages[i];
    if (m.role === "assistant") return m.content;
    if (m.role === "user") return "";
  }
  return "";
}
