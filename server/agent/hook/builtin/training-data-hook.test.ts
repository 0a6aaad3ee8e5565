import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentCancelledError, PolicyViolationError } from "../../errors";
import { ScriptedProvider } from "../../llm/providers/scripted-provider";
import { ReactAgent } from "../../react/react-agent";
import { createSpanHooks } from "../../trace/create-span-hooks";
import { Training } from "../../trace/genai-attributes";
import { InMemorySpanSink } from "../../trace/span-record";
import { defineTool } from "../../tools/tool";
import { testTurn } from "../../testing/turn-fixture";
import { ZERO_USAGE } from "../../llm/token-usage";
import type { AgentResult } from "../../state/agent-result";
import type { HookContext } from "../hook-context";
import { BeforeLlmHook } from "../hook-contracts";
import { HookRunner, type HookSpec } from "../hook-runner";
import { TRAINING_DATA_PRIORITY, TrainingDataHook } from "./training-data-hook";

const echo = defineTool({ name: "echo", description: "", args: z.object({ text: z.string() }), execute: ({ text }) => text });

/** An agent writing spans at the minimal tier (the root alone) with the training_data hook on. */
function agent(provider: ScriptedProvider, extra: HookSpec[] = []) {
  const sink = new InMemorySpanSink();
  const hooks = [...createSpanHooks({ tier: "minimal", sink, providerName: "scripted", model: "m" }), { hook: new TrainingDataHook("You echo."), priority: TRAINING_DATA_PRIORITY }, ...extra];
  return { sink, agent: new ReactAgent({ provider, tools: [echo], hooks, systemPrompt: "You echo." }) };
}

const rootOf = (sink: InMemorySpanSink) => sink.spans.find((s) => s.parentSpanId === undefined)!;

describe("TrainingDataHook", () => {
  it("tags a completed turn's root span relevant, with its messages' range in the stored conversation and the system prompt", async () => {
    const provider = new ScriptedProvider([{ text: "first" }, { toolCalls: [{ name: "echo", args: { text: "hi" } }] }, { text: "done" }]);
    const { sink, agent: a } = agent(provider);
    await a.run("one", { sessionId: "s", turnId: "t1" });
    sink.spans.length = 0;
    await a.run("two", { sessionId: "s", turnId: "t2" });
    const root = rootOf(sink);
    expect(root.attributes[Training.RELEVANT]).toBe(true);
    // The second turn's messages follow the first's two: user, assistant+tool call, tool, answer.
    expect(root.attributes[Training.MESSAGES]).toEqual([2, 6]);
    expect(root.attributes["gen_ai.system_instructions"]).toBe("You echo.");
    expect((await a.memory.load("s")).slice(2, 6).map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });

  it("tags a failed turn not relevant", async () => {
    const { sink, agent: a } = agent(new ScriptedProvider([{ fail: { message: "provider down" } }]));
    await a.run("x", { sessionId: "s" }).catch(() => undefined);
    expect(rootOf(sink).attributes[Training.RELEVANT]).toBe(false);
  });

  it("tags a stopped (cancelled) turn not relevant", async () => {
    // A person's stop reaches the turn as the control channel's cancel: an AgentCancelledError at a drain point.
    class Stop extends BeforeLlmHook {
      beforeLlm(): void {
        throw new AgentCancelledError("stopped by the person");
      }
    }
    const { sink, agent: a } = agent(new ScriptedProvider([{ text: "never" }]), [{ hook: new Stop() }]);
    const outcome = await a.run("x", { sessionId: "s" });
    expect(outcome.status === "finished" && outcome.result.stopReason).toBe("cancelled");
    expect(rootOf(sink).attributes[Training.RELEVANT]).toBe(false);
  });

  it("tags a policy violation not relevant", async () => {
    class Veto extends BeforeLlmHook {
      beforeLlm(_ctx: HookContext<"BEFORE_LLM">): void {
        throw new PolicyViolationError("not allowed");
      }
    }
    const { sink, agent: a } = agent(new ScriptedProvider([{ text: "never" }]), [{ hook: new Veto() }]);
    const outcome = await a.run("x", { sessionId: "s" });
    expect(outcome.status === "finished" && outcome.result.stopReason).toBe("policy_violation");
    expect(rootOf(sink).attributes[Training.RELEVANT]).toBe(false);
  });

  it("leaves the suspend leg (and a turn without a root span) untouched", async () => {
    const sink = new InMemorySpanSink();
    const runner = new HookRunner();
    for (const spec of createSpanHooks({ tier: "minimal", sink, providerName: "scripted", model: "m" })) runner.register(spec);
    runner.register({ hook: new TrainingDataHook(), priority: TRAINING_DATA_PRIORITY });
    const turn = testTurn();
    await runner.dispatch("START_NODE_TURN", turn, { resumed: false });
    await runner.dispatch("FINALLY_GRAPH", turn, { result: null });
    expect(sink.spans).toEqual([]); // still open, and untagged
    const result: AgentResult = { stopReason: "completed", content: "ok", iterations: 1, turnAttempts: 1, usage: ZERO_USAGE };
    await runner.dispatch("FINALLY_GRAPH", turn, { result });
    expect(rootOf(sink).attributes[Training.RELEVANT]).toBe(true);
    // No tracing: nothing to tag, and no failure.
    await new HookRunner().register(new TrainingDataHook()).dispatch("FINALLY_GRAPH", testTurn(), { result });
  });
});
