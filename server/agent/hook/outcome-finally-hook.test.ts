import { describe, expect, it } from "vitest";
import type { AgentResult } from "../state/agent-result";
import { ZERO_USAGE } from "../llm/token-usage";
import { testTurn } from "../testing/turn-fixture";
import type { HookContext } from "./hook-context";
import { FinallyGraphHook } from "./hook-contracts";
import { HookRunner } from "./hook-runner";
import { OutcomeFinallyHook, isSuspendLeg } from "./outcome-finally-hook";

const result: AgentResult = { stopReason: "completed", content: "ok", iterations: 1, turnAttempts: 1, usage: ZERO_USAGE };

class Outcomes extends OutcomeFinallyHook {
  seen: AgentResult[] = [];
  onOutcome(_ctx: HookContext<"FINALLY_GRAPH">, r: AgentResult): void {
    this.seen.push(r);
  }
}

describe("isSuspendLeg", () => {
  it("is true only for no result and no error", () => {
    expect(isSuspendLeg(null)).toBe(true);
    expect(isSuspendLeg(undefined)).toBe(true);
    expect(isSuspendLeg(null, new Error("crash"))).toBe(false);
    expect(isSuspendLeg(result)).toBe(false);
  });
});

describe("OutcomeFinallyHook", () => {
  it("is a FINALLY_GRAPH hook that skips the suspend leg and sees terminal outcomes", async () => {
    const hook = new Outcomes();
    expect(hook instanceof FinallyGraphHook).toBe(true);
    const runner = new HookRunner().register(hook);
    await runner.dispatch("FINALLY_GRAPH", testTurn(), { result: null });
    expect(hook.seen).toEqual([]);
    await runner.dispatch("FINALLY_GRAPH", testTurn(), { result });
    expect(hook.seen).toEqual([result]);
  });

  it("never sees a crash leg either (no result to report)", async () => {
    const hook = new Outcomes();
    await new HookRunner().register(hook).dispatch("FINALLY_GRAPH", testTurn(), { result: null, error: new Error("x") });
    expect(hook.seen).toEqual([]);
  });
});
