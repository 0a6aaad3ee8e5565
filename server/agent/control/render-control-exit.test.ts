import { describe, expect, it } from "vitest";
import { AgentCancelledError, AgentTimeoutError, LoopDetectedError, PolicyViolationError, isAgentControlError, mustPropagate, isAbortError } from "../errors";
import { testTurn } from "../testing/turn-fixture";
import { renderControlExit } from "./render-control-exit";

describe("AgentControlError family", () => {
  it("each subclass carries its stop reason and literal code", () => {
    const cases = [
      [new AgentCancelledError("x"), "cancelled", "AGENT_CANCELLED"],
      [new AgentTimeoutError("x"), "timeout", "AGENT_TIMEOUT"],
      [new PolicyViolationError("x"), "policy_violation", "POLICY_VIOLATION"],
      [new LoopDetectedError("x"), "loop_detected", "LOOP_DETECTED"],
    ] as const;
    for (const [error, stopReason, code] of cases) {
      expect(isAgentControlError(error)).toBe(true);
      expect(mustPropagate(error)).toBe(true);
      expect(error.stopReason).toBe(stopReason);
      expect(error.code).toBe(code);
    }
  });

  it("plain errors are not control flow; AbortErrors are cancellation", () => {
    expect(isAgentControlError(new Error("x"))).toBe(false);
    expect(mustPropagate(new Error("x"))).toBe(false);
    const abort = new DOMException("aborted", "AbortError");
    expect(isAbortError(abort)).toBe(true);
    expect(mustPropagate(abort)).toBe(true);
  });
});

describe("renderControlExit", () => {
  it("renders the user-facing content when given", () => {
    const turn = testTurn();
    turn.iteration = 3;
    turn.turnAttempt = 1;
    const result = renderControlExit(new PolicyViolationError("rule 7", { userContent: "I can't do that." }), turn);
    expect(result).toMatchObject({ stopReason: "policy_violation", content: "I can't do that.", iterations: 3, turnAttempts: 1 });
    expect(result.error).toEqual({ code: "POLICY_VIOLATION", message: "rule 7" });
  });

  it("falls back to a default per stop reason", () => {
    expect(renderControlExit(new AgentCancelledError("stop"), testTurn()).content).toBe("The turn was cancelled.");
    expect(renderControlExit(new LoopDetectedError("loop"), testTurn()).stopReason).toBe("loop_detected");
  });
});
