import { createTurnState, type TurnState, type TurnStateInit } from "../state/turn-state";

/** A fresh turn state for tests. */
export function testTurn(init: Partial<TurnStateInit> = {}): TurnState {
  return createTurnState({ sessionId: "s1", turnId: "t1", ...init });
}
