import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ApprovalResumer } from "../../approval/approval-resumer";
import { InMemoryControlChannel } from "../../control/in-memory-control-channel";
import { AfterGraphHook, FinallyGraphHook } from "../../hook/hook-contracts";
import type { HookContext } from "../../hook/hook-context";
import { HookErrorPolicy } from "../../hook/hook-error-policy";
import type { HookSpec } from "../../hook/hook-runner";
import { ScriptedProvider, type Script } from "../../llm/providers/scripted-provider";
import { ZERO_USAGE } from "../../llm/token-usage";
import { recordingLogger, type AgentLogger } from "../../logger";
import { ReactAgent } from "../../react/react-agent";
import { defineTool } from "../../tools/tool";
import { ExtensionContext } from "../extension-context";
import { ExtensionManager } from "../extension-manager";
import type { Extension } from "../extension";
import { LoggingExtension } from "./logging-extension";
import { MAX_TRACKED_INSTANCES, TokenBudgetExtension } from "./token-budget-extension";

// The built-ins keep per-turn and per-instance state; these check it is let go when a turn ends however
// it ends (a veto or a failure has no LOOP_COMPLETE), so a long-lived server does not grow for ever.

const deleteFile = defineTool({
  name: "delete_file",
  description: "Delete a file",
  args: z.object({ path: z.string() }),
  needsApproval: true,
  execute: ({ path }) => `deleted ${path}`,
});

function agentWith(extensions: Extension[], script: Script, logger: AgentLogger = recordingLogger()) {
  const manager = new ExtensionManager({ logger });
  for (const e of extensions) manager.register(e);
  return new ReactAgent({ provider: new ScriptedProvider(script), tools: [deleteFile], extensions: manager, logger });
}

const usage = { inputTokens: 60, outputTokens: 60 };

describe("token_budget lets go of what ended", () => {
  it("a turn ended by its own veto keeps no per-turn total; nor does a completed one", async () => {
    const budget = new TokenBudgetExtension({ perTurn: 100, perInstance: 10_000 });
    const agent = agentWith([budget], [{ text: "a", toolCalls: [{ name: "delete_file", args: { path: "/x" } }], usage }]);
    // The first call uses 120 of 100 tokens; the tool needs approval, so approve-all is not in play: the
    // turn suspends, keeping its total (it goes on after the decision).
    const suspended = await agent.run("go", { sessionId: "s1" });
    expect(suspended.status).toBe("suspended");
    expect(budget.tracked().turns).toBe(1);
    if (suspended.status !== "suspended") return;
    const resumed = await new ApprovalResumer(agent).applyResume({ transactionId: suspended.transaction.id, approved: true });
    // After the tool, the next model call is past the budget: vetoed, and the turn's total let go.
    expect(resumed.status === "finished" && resumed.result.stopReason).toBe("policy_violation");
    expect(budget.counters()).toEqual({ vetoed: 1 });
    expect(budget.tracked().turns).toBe(0);

    const done = await agentWith([budget], [{ text: "fine", usage: { inputTokens: 1, outputTokens: 1 } }]).run("hi", { sessionId: "s2" });
    expect(done.status === "finished" && done.result.stopReason).toBe("completed");
    expect(budget.tracked()).toEqual({ turns: 0, instances: 2 });
  });

  it(`keeps at most ${MAX_TRACKED_INSTANCES} instances' totals, dropping the least recently active`, () => {
    const budget = new TokenBudgetExtension({ perInstance: 100 });
    const answered = (sessionId: string, tokens: number) =>
      budget.onAfterLlmResponse(new ExtensionContext({ sessionId, turnId: "t", data: { response: "", llmParams: { tools: [] }, usage: { ...ZERO_USAGE, inputTokens: tokens } } }));
    const vetoes = (sessionId: string) => budget.onBeforeLlmCall(new ExtensionContext({ sessionId, turnId: "t2", data: { prompt: [], llmParams: { tools: [] } } })) === false;
    answered("old:coder", 150);
    answered("kept:coder", 150);
    for (let i = 0; i < MAX_TRACKED_INSTANCES - 2; i++) answered(`run${i}:node`, 1);
    answered("old:reviewer", 1); // active again: now the most recent
    answered("new:coder", 1); // one past the bound: the least recently active ("kept") goes
    expect(budget.tracked().instances).toBe(MAX_TRACKED_INSTANCES);
    expect(vetoes("old:reviewer")).toBe(true);
    expect(vetoes("kept:coder")).toBe(false);
  });
});

describe("logging lets go of what ended", () => {
  it("a vetoed or Stopped turn's end is logged as stopped, with its time; a suspended one is still timed until it ends", async () => {
    const logger = recordingLogger();
    const logging = new LoggingExtension(logger);
    const veto = { name: "veto", priority: 30, enabled: true, onBeforeLlmCall: () => false } as unknown as Extension;
    await agentWith([logging, veto], [{ text: "never" }], logger).run("hi", { sessionId: "s1" });
    expect(logging.timing()).toBe(0);
    expect(logger.records.map((r) => String(r.message)).filter((m) => m.includes("[ext:logging] s1 turn"))).toEqual([
      expect.stringMatching(/message \(2 chars\)$/),
      expect.stringMatching(/stopped in \d+ ms$/),
    ]);

    // A Stop (the control channel's CANCEL_TURN) after a model call that used tokens, before its tool
    // runs: no LOOP_COMPLETE either; the budget's total for the turn goes too.
    const channel = new InMemoryControlChannel();
    const budget = new TokenBudgetExtension({ perTurn: 1_000 });
    const manager = new ExtensionManager({ logger });
    manager.register(logging);
    manager.register(budget);
    let budgetDuringTurn = -1;
    // After the budget counted the call (priority 20), a person presses Stop.
    const stop = {
      name: "stop",
      priority: 99,
      enabled: true,
      onAfterLlmResponse: () => {
        budgetDuringTurn = budget.tracked().turns;
        channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "s3", turnId: "t3" });
      },
    } as unknown as Extension;
    manager.register(stop);
    const noop = defineTool({ name: "noop", description: "", args: z.object({}), execute: () => "x" });
    const stopped = new ReactAgent({
      provider: new ScriptedProvider([{ text: "calling", toolCalls: [{ name: "noop", args: {} }], usage }]),
      tools: [noop],
      extensions: manager,
      logger,
      channel,
    });
    const cancelled = await stopped.run("go", { sessionId: "s3", turnId: "t3" });
    expect(cancelled.status === "finished" && cancelled.result.stopReason).toBe("cancelled");
    expect(logging.timing()).toBe(0);
    expect(budget.tracked().turns).toBe(0);
    expect(budgetDuringTurn).toBe(1);
    expect(logger.records.map((r) => String(r.message)).some((m) => /\[ext:logging\] s3 turn t3 stopped in \d+ ms/.test(m))).toBe(true);

    const agent = agentWith([logging], [{ text: "a", toolCalls: [{ name: "delete_file", args: { path: "/x" } }] }, { text: "done" }], logger);
    const suspended = await agent.run("delete", { sessionId: "s2" });
    expect(suspended.status).toBe("suspended");
    expect(logging.timing()).toBe(1);
    if (suspended.status !== "suspended") return;
    await new ApprovalResumer(agent).applyResume({ transactionId: suspended.transaction.id, approved: true });
    expect(logging.timing()).toBe(0);
    expect(logger.records.map((r) => String(r.message)).some((m) => /\[ext:logging\] s2 turn \S+ done in \d+ ms/.test(m))).toBe(true);
  });
});

describe("a turn aborted through its signal ends as a Stop does", () => {
  // The chat aborts a turn's signal on a new message, a deleted chat or a stopping server: run() rejects
  // with the AbortError, and the built-ins must still let go of the turn and log its end, once.
  function abortingAgent(extensions: Extension[], logger: AgentLogger, hooks: HookSpec[] = []) {
    const controller = new AbortController();
    const stop = defineTool({ name: "stop", description: "", args: z.object({}), execute: () => (controller.abort(), "stopped") });
    const manager = new ExtensionManager({ logger });
    for (const e of extensions) manager.register(e);
    const script: Script = [{ text: "a", toolCalls: [{ name: "stop" }], usage }, { text: "never" }];
    const agent = new ReactAgent({ provider: new ScriptedProvider(script), tools: [stop], extensions: manager, hooks, logger });
    return { agent, signal: controller.signal };
  }
  const lines = (logger: ReturnType<typeof recordingLogger>, session: string) =>
    logger.records.map((r) => String(r.message)).filter((m) => m.startsWith(`[ext:logging] ${session} turn`));

  it("token_budget lets go of the turn's total and logging logs it stopped, not failed", async () => {
    const logger = recordingLogger();
    const budget = new TokenBudgetExtension({ perTurn: 1000, perInstance: 10_000 });
    const logging = new LoggingExtension(logger);
    const { agent, signal } = abortingAgent([logging, budget], logger);
    await expect(agent.run("go", { sessionId: "s1", signal })).rejects.toMatchObject({ name: "AbortError" });
    expect(budget.tracked()).toEqual({ turns: 0, instances: 1 });
    expect(logging.timing()).toBe(0);
    expect(lines(logger, "s1")).toEqual([expect.stringMatching(/message \(2 chars\)$/), expect.stringMatching(/stopped in \d+ ms$/)]);
  });

  it("a failing end point (an extension, a hook under the abort policy) does not mask the abort", async () => {
    const logger = recordingLogger();
    const budget = new TokenBudgetExtension({ perTurn: 1000 });
    const logging = new LoggingExtension(logger);
    const broken = { name: "broken", priority: 10, enabled: true, onAfterResponseSend: () => { throw new Error("broken end"); } } as unknown as Extension;
    class BrokenExit extends AfterGraphHook {
      afterGraph(): void {
        throw new Error("broken exit");
      }
    }
    const finals: unknown[] = [];
    class Finally extends FinallyGraphHook {
      finallyGraph(ctx: HookContext<"FINALLY_GRAPH">): void {
        finals.push(ctx.error);
      }
    }
    const hooks = [{ hook: new BrokenExit(), errorPolicy: HookErrorPolicy.ABORT }, { hook: new Finally() }];
    const { agent, signal } = abortingAgent([logging, broken, budget], logger, hooks);
    await expect(agent.run("go", { sessionId: "s2", signal })).rejects.toMatchObject({ name: "AbortError" });
    expect(budget.tracked().turns).toBe(0);
    expect(lines(logger, "s2").filter((m) => /stopped in/.test(m))).toHaveLength(1);
    expect(finals).toEqual([expect.objectContaining({ name: "AbortError" })]);
    expect(logger.records.some((r) => /broken end/.test(String(r.message)))).toBe(true);
    expect(logger.records.some((r) => /aborted run failed \(the abort stands\).*broken exit/.test(String(r.message)))).toBe(true);
  });
});
