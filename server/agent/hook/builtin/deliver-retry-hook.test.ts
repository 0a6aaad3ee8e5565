import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ScriptedProvider } from "../../llm/providers/scripted-provider";
import { ReactAgent } from "../../react/react-agent";
import { GRAPH_NODE_MAX_TURNS } from "../../state/turn-state";
import { defineTool } from "../../tools/tool";
import { DeliverRetryHook } from "./deliver-retry-hook";

const deliver = defineTool({ name: "deliver", description: "Hand the result on", args: z.object({ content: z.string() }), execute: () => "delivered" });

describe("DeliverRetryHook", () => {
  it("re-prompts a graph-node turn that ended without delivering; the reminder follows the assistant message", async () => {
    const provider = new ScriptedProvider([{ text: "Here is my answer." }, { toolCalls: [{ name: "deliver", args: { content: "x" } }] }, { text: "Delivered." }]);
    const agent = new ReactAgent({ provider, tools: [deliver], maxTurns: GRAPH_NODE_MAX_TURNS, hooks: [{ hook: new DeliverRetryHook() }] });
    const outcome = await agent.run("work", { sessionId: "s" });
    expect(outcome.status === "finished" && outcome.result).toMatchObject({ stopReason: "completed", turnAttempts: 2 });
    const seen = provider.requests[1].messages.slice(-2);
    expect(seen[0]).toEqual({ role: "assistant", content: "Here is my answer." });
    expect(seen[1].content).toContain("deliver");
  });

  it("does not ask when the budget allows no further attempt", async () => {
    const provider = new ScriptedProvider(() => ({ text: "never delivering" }));
    const agent = new ReactAgent({ provider, tools: [deliver], maxTurns: GRAPH_NODE_MAX_TURNS, hooks: [{ hook: new DeliverRetryHook() }] });
    const outcome = await agent.run("work", { sessionId: "s" });
    expect(outcome.status === "finished" && outcome.result.turnAttempts).toBe(GRAPH_NODE_MAX_TURNS);
    expect((await agent.memory.load("s")).filter((m) => m.content.includes("<system-reminder>"))).toHaveLength(GRAPH_NODE_MAX_TURNS - 1);
  });
});
