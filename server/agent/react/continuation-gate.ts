import { TurnCustomKeys } from "../state/turn-custom-keys";
import type { TurnState } from "../state/turn-state";

/**
 * AFTER's continuation gate. CONTINUATION_REQUEST is one-shot: its presence asks for another attempt and
 * it is popped whatever the decision. The budget is `turn.maxTurns` attempts; CONTINUATION_RENEW_MAX_TURNS
 * (the watchdog) extends it by exactly one, once per turn, and is popped too.
 * Returns true when the turn should continue with a new attempt.
 */
export function continuationGate(turn: TurnState): boolean {
  const requested = turn.custom.pop(TurnCustomKeys.CONTINUATION_REQUEST) !== undefined;
  const renew = turn.custom.pop(TurnCustomKeys.CONTINUATION_RENEW_MAX_TURNS) !== undefined;
  if (renew && !turn.custom.has(TurnCustomKeys.CONTINUATION_RENEWED)) {
    turn.maxTurns += 1;
    turn.custom.set(TurnCustomKeys.CONTINUATION_RENEWED, true);
  }
  return requested && turn.turnAttempt < turn.maxTurns;
}
