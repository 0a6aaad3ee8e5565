import { describe, expect, it } from "vitest";
import { TurnCustomKeys } from "../state/turn-custom-keys";
import { testTurn } from "../testing/turn-fixture";
import { continuationGate } from "./continuation-gate";

describe("continuationGate", () => {
  it("continues only on request and within the budget", () => {
    const turn = testTurn({ maxTurns: 3 });
    turn.turnAttempt = 1;
    expect(continuationGate(turn)).toBe(false);
    turn.custom.set(TurnCustomKeys.CONTINUATION_REQUEST, true);
    expect(continuationGate(turn)).toBe(true);
    turn.turnAttempt = 3;
    turn.custom.set(TurnCustomKeys.CONTINUATION_REQUEST, true);
    expect(continuationGate(turn)).toBe(false);
  });

  it("pops the request whatever the decision (one-shot)", () => {
    const turn = testTurn({ maxTurns: 1 });
    turn.turnAttempt = 1;
    turn.custom.set(TurnCustomKeys.CONTINUATION_REQUEST, true);
    expect(continuationGate(turn)).toBe(false);
    expect(turn.custom.has(TurnCustomKeys.CONTINUATION_REQUEST)).toBe(false);
  });

  it("renew extends the budget by exactly one, once", () => {
    const turn = testTurn({ maxTurns: 1 });
    turn.turnAttempt = 1;
    turn.custom.set(TurnCustomKeys.CONTINUATION_REQUEST, true);
    turn.custom.set(TurnCustomKeys.CONTINUATION_RENEW_MAX_TURNS, true);
    expect(continuationGate(turn)).toBe(true);
    expect(turn.maxTurns).toBe(2);
    turn.turnAttempt = 2;
    turn.custom.set(TurnCustomKeys.CONTINUATION_REQUEST, true);
    turn.custom.set(TurnCustomKeys.CONTINUATION_RENEW_MAX_TURNS, true);
    expect(continuationGate(turn)).toBe(false);
    expect(turn.maxTurns).toBe(2);
  });
});
