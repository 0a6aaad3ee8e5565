import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ApprovalResumer } from "../../approval/approval-resumer";
import { InMemoryControlChannel } from "../../control/in-memory-control-channel";
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
    const budget = new TokenBudgetExtension({ perTurn: 100 });
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
