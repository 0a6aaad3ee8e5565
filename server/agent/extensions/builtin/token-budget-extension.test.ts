import { describe, expect, it } from "vitest";
import { InMemoryControlChannel } from "../../control/in-memory-control-channel";
import { ScriptedProvider, type Script } from "../../llm/providers/scripted-provider";
import { recordingLogger } from "../../logger";
import { ReactAgent } from "../../react/react-agent";
import { ExtensionManager } from "../extension-manager";
import { InMemoryTokenTotals } from "./token-totals";
import { TokenBudgetExtension } from "./token-budget-extension";

// A model call the provider reported no usage for is counted at its estimate (llm/usage-estimate.ts):
// a stopped turn, or a server that never sends usage, is not free.

function agentWith(budget: TokenBudgetExtension, script: Script, channel?: InMemoryControlChannel) {
  const manager = new ExtensionManager({ logger: recordingLogger() });
  manager.register(budget);
  let deltas = 0;
  return new ReactAgent({
    provider: new ScriptedProvider(script),
    extensions: manager,
    logger: recordingLogger(),
    channel,
    // Stop the turn after its second streamed word (as the chat's Stop would).
    onEvent: (e) => {
      if (channel && e.type === "llm_event" && e.event.type === "text_delta" && ++deltas === 2) channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId: "run1:a", turnId: e.turnId });
    },
  });
}

describe("token_budget counts estimated tokens", () => {
  it("a turn stopped mid-stream adds its estimate to the instance's total: the instance's next call is vetoed", async () => {
    const totals = new InMemoryTokenTotals();
    const budget = new TokenBudgetExtension({ perInstance: 5, totals });
    const stopped = await agentWith(budget, [{ text: "a long answer the person stops", usage: { inputTokens: 1, outputTokens: 1 } }], new InMemoryControlChannel()).run("go", { sessionId: "run1:a", turnId: "t1" });
    expect(stopped.status === "finished" && stopped.result).toMatchObject({ stopReason: "cancelled", usage: { estimated: true } });
    const used = stopped.status === "finished" ? stopped.result.usage.inputTokens + stopped.result.usage.outputTokens : 0;
    expect(used).toBeGreaterThanOrEqual(5);
    expect(totals.get("run1")).toBe(used);

    const next = await agentWith(budget, [{ text: "never", usage: { inputTokens: 1, outputTokens: 1 } }]).run("again", { sessionId: "run1:b" });
    expect(next.status === "finished" && next.result.stopReason).toBe("policy_violation");
    expect(budget.counters()).toEqual({ vetoed: 1 });
  });

  it("a model that never reports usage is counted at its estimate, turn by turn", async () => {
    const budget = new TokenBudgetExtension({ perTurn: 8 });
    const agent = agentWith(budget, [
      { text: "one", toolCalls: [{ name: "missing_tool" }], noUsage: true },
      { text: "two", noUsage: true },
    ]);
    const outcome = await agent.run("a question long enough to be counted", { sessionId: "s" });
    // The first call's estimate (13 in + 5 out) is over the turn's 8: the second call is vetoed.
    expect(outcome.status === "finished" && outcome.result.stopReason).toBe("policy_violation");
  });
});
