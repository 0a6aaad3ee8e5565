import { describe, expect, it } from "vitest";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { testServices } from "../testing/test-services";

const script = () =>
  new ScriptedProvider([
    { text: "Planning. ", toolCalls: [{ name: "todo_write", args: { todos: [{ content: "answer", status: "completed" }] } }], usage: { inputTokens: 40, outputTokens: 9 } },
    { text: "Done.", usage: { inputTokens: 60, outputTokens: 3 } },
  ]);

const agentYaml = (name: string, tier?: string) =>
  `name: ${name}\ndescription: Plans.\ninstructions: You plan.\ntools: [todo_write]\n${tier ? `tracing:\n  tier: ${tier}\n` : ""}`;

describe("span tiers (MODEX_TRACE_TIER and an agent's tracing.tier), on SQLite", () => {
  it("standard (the default): the turn, model calls and tools; no iteration spans, no prompts", async () => {
    await using t = testServices("sqlite", { chatProvider: script() });
    t.services.agents.save(agentYaml("planner2"));
    const sent = await t.services.chat.send({ message: "plan", agent: "planner2" });
    const { sessionId } = sent;
    const turnId = sent.turnId!;
    await t.services.chat.idle(sessionId);
    const spans = (await t.services.chat.trace(sessionId, turnId)).spans;
    expect(spans.map((s) => s.name)).toEqual(["invoke_agent planner2", "chat scripted", "execute_tool todo_write", "chat scripted"]);
    expect(spans.some((s) => "gen_ai.input.messages" in s.attributes)).toBe(false);
  });

  it("full from the app's default: agent start and one span per ReAct iteration (parents of its model and tool spans), with prompt and response", async () => {
    await using t = testServices("sqlite", { chatProvider: script(), traceTier: "full" });
    t.services.agents.save(agentYaml("planner2"));
    const sent = await t.services.chat.send({ message: "plan", agent: "planner2" });
    const { sessionId } = sent;
    const turnId = sent.turnId!;
    await t.services.chat.idle(sessionId);
    const spans = (await t.services.chat.trace(sessionId, turnId)).spans;
    const iterations = spans.filter((s) => s.name.startsWith("iteration "));
    expect(iterations.map((s) => s.name)).toEqual(["iteration 1", "iteration 2"]);
    const models = spans.filter((s) => s.name.startsWith("chat "));
    expect(models.map((s) => s.parentSpanId)).toEqual(iterations.map((s) => s.spanId));
    expect(spans.some((s) => s.name === "agent_start planner2")).toBe(true);
    expect(String(models[0].attributes["gen_ai.input.messages"])).toContain("plan");
    expect(String(models[1].attributes["gen_ai.output.messages"])).toContain("Done.");
  });

  it("an agent's tracing.tier overrides the default: minimal keeps the turn alone, with its token total", async () => {
    await using t = testServices("sqlite", { chatProvider: script(), traceTier: "full" });
    t.services.agents.save(agentYaml("quiet", "minimal"));
    const sent = await t.services.chat.send({ message: "plan", agent: "quiet" });
    const { sessionId } = sent;
    const turnId = sent.turnId!;
    await t.services.chat.idle(sessionId);
    const spans = (await t.services.chat.trace(sessionId, turnId)).spans;
    expect(spans.map((s) => s.name)).toEqual(["invoke_agent quiet"]);
    expect(spans[0].attributes).toMatchObject({ "gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 12 });
  });
});
