import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentNodeDeps } from "@/server/agent/graph-node/agent-node";
import { LlmProvider, type LlmStreamOptions } from "@/server/agent/llm/llm-provider";
import type { LlmRequest } from "@/server/agent/llm/messages";
import type { LLMStreamEvent } from "@/server/agent/llm/stream-events";
import { ScriptedProvider, type Script } from "@/server/agent/llm/providers/scripted-provider";
import { testServices } from "../testing/test-services";
import { ModelPrices } from "./model-prices";

const deliver = (target: string, content: string, usage: { inputTokens: number; outputTokens: number }) => ({ toolCalls: [{ name: "deliver", args: { target, content } }], usage });

function scripted(scripts: Record<string, Script>): AgentNodeDeps["provider"] {
  const providers = Object.fromEntries(Object.entries(scripts).map(([n, s]) => [n, new ScriptedProvider(s)]));
  return (_config, node) => providers[node];
}

/** review-cycle: coder → reviewer (revisions) → coder → reviewer → __end__, each turn one call plus a closing reply. */
const reviewCycle = () =>
  scripted({
    coder: [deliver("reviewer", "v1", { inputTokens: 100, outputTokens: 10 }), { text: "sent", usage: { inputTokens: 120, outputTokens: 2 } }, deliver("reviewer", "v2", { inputTokens: 200, outputTokens: 20 }), { text: "sent", usage: { inputTokens: 220, outputTokens: 2 } }],
    reviewer: [deliver("coder", "fix it", { inputTokens: 50, outputTokens: 5 }), { text: "back", usage: { inputTokens: 60, outputTokens: 1 } }, deliver("__end__", "ok", { inputTokens: 70, outputTokens: 7 }), { text: "done", usage: { inputTokens: 80, outputTokens: 1 } }],
  });

const MODEL = { baseURL: "http://127.0.0.1:9/v1", model: "gpt-test" };

describe("agent token usage in graph runs (SQLite event log)", () => {
  it("totals per node, per model and per instance, each turn with its trace, priced from the table", async () => {
    const prices = new ModelPrices({ currency: "EUR", models: { "gpt-*": { input: 2, output: 10 } } });
    await using t = testServices("sqlite", { provider: reviewCycle(), model: MODEL }, { modelPrices: prices });
    const { instanceId } = await t.services.orchestrator.create({ spec: "review-cycle", input: "Write add(a, b)." });
    expect((await t.settled(instanceId)).status).toBe("completed");

    const usage = (await t.services.usage.forInstance(instanceId));
    expect(usage).toMatchObject({ instanceId, currency: "EUR", inputTokens: 900, outputTokens: 48, calls: 8, unpriced: [] });
    expect(usage.cost).toBeCloseTo((900 * 2 + 48 * 10) / 1e6, 12);
    expect(usage.models).toEqual([expect.objectContaining({ model: "gpt-test", calls: 8, inputTokens: 900 })]);
    const [coder, reviewer] = usage.nodes;
    expect(coder).toMatchObject({ node: "coder", inputTokens: 640, outputTokens: 34, calls: 4 });
    expect(reviewer).toMatchObject({ node: "reviewer", inputTokens: 260, outputTokens: 14, calls: 4 });
    expect(coder.cost! + reviewer.cost!).toBeCloseTo(usage.cost!, 12);
    expect(coder.turns).toHaveLength(2);
    expect(coder.turns[0]).toMatchObject({ inputTokens: 220, outputTokens: 12, calls: 2, stopReason: "completed", traceSession: `${instanceId}:coder`, version: 1 });

    // Each turn's trace: the node's agent spans of that turn (standard tier), with what its calls cost.
    const trace = await t.services.usage.trace(instanceId, "coder", coder.turns[0].turnId);
    expect(trace.spans[0].name).toBe("invoke_agent coder");
    expect(trace.spans.filter((s) => s.name === "chat gpt-test")).toHaveLength(2);
    expect(trace.cost).toBeCloseTo((220 * 2 + 12 * 10) / 1e6, 12);
    expect((await t.services.usage.forInstance(instanceId, { version: 2 })).nodes).toEqual([]);
  });

  it("without a price table costs are null; a model missing from the table is named, its tokens still counted", async () => {
    await using plain = testServices("sqlite", { provider: reviewCycle(), model: MODEL });
    const a = await plain.services.orchestrator.create({ spec: "review-cycle", input: "x" });
    await plain.settled(a.instanceId);
    expect((await plain.services.usage.forInstance(a.instanceId))).toMatchObject({ cost: null, currency: null, inputTokens: 900 });

    await using other = testServices("sqlite", { provider: reviewCycle(), model: MODEL }, { modelPrices: new ModelPrices({ currency: "USD", models: { "claude-x": { input: 3, output: 15 } } }) });
    const b = await other.services.orchestrator.create({ spec: "review-cycle", input: "x" });
    await other.settled(b.instanceId);
    expect((await other.services.usage.forInstance(b.instanceId))).toMatchObject({ cost: 0, unpriced: ["gpt-test"], inputTokens: 900 });
  });

  it("an agent's tracing.tier reaches its graph nodes: the full tier traces each ReAct iteration of a node's turn", async () => {
    await using t = testServices("sqlite", { provider: reviewCycle(), model: MODEL });
    await t.services.agents.save(`${(await t.services.agents.get("coder")).yaml.trimEnd()}\ntracing:\n  tier: full\n`, "coder");
    const { instanceId } = await t.services.orchestrator.create({ spec: "review-cycle", input: "x" });
    await t.settled(instanceId);
    const [coder, reviewer] = (await t.services.usage.forInstance(instanceId)).nodes;
    const full = (await t.services.usage.trace(instanceId, "coder", coder.turns[0].turnId)).spans.map((s) => s.name);
    expect(full).toEqual(expect.arrayContaining(["invoke_agent coder", "agent_start coder", "iteration 1", "iteration 2"]));
    const standard = (await t.services.usage.trace(instanceId, "reviewer", reviewer.turns[0].turnId)).spans.map((s) => s.name);
    expect(standard.some((name) => name.startsWith("iteration"))).toBe(false);
  });

  it("a run stopped while an agent node streams counts the cut call at its estimate, marked in the totals, the turn and its trace", async () => {
    let streamed!: () => void;
    const midStream = new Promise<void>((resolve) => (streamed = resolve));
    /** Streams a word every 20 ms and never reaches its usage chunk: a stop cuts it first. */
    class Slow extends LlmProvider {
      readonly name = "slow";
      async *stream(_request: LlmRequest, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
        for (let i = 0; i < 500; i++) {
          if (i === 3) streamed();
          await new Promise((r) => setTimeout(r, 20));
          if (options.signal.aborted) throw new DOMException("aborted", "AbortError");
          yield { type: "text_delta", text: `word${i} ` };
        }
      }
    }
    const slow = new Slow();
    await using t = testServices("sqlite", { provider: () => slow, model: MODEL });
    const { instanceId } = await t.services.orchestrator.create({ spec: "review-cycle", input: "Write add(a, b)." });
    await midStream;
    await t.services.control.stop(instanceId);
    await t.settled(instanceId);

    const usage = await t.services.usage.forInstance(instanceId);
    expect(usage).toMatchObject({ calls: 1, estimated: true });
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThanOrEqual(2); // "word0 word1 word2 ": at least 18 characters
    const [coder] = usage.nodes;
    expect(coder.turns[0]).toMatchObject({ estimated: true, stopReason: "cancelled", inputTokens: usage.inputTokens, outputTokens: usage.outputTokens });
    const trace = await t.services.usage.trace(instanceId, "coder", coder.turns[0].turnId);
    const chat = trace.spans.find((s) => s.name === "chat gpt-test")!;
    expect(chat.attributes).toMatchObject({ "gen_ai.usage.output_tokens": usage.outputTokens, "modex.usage.estimated": true });
  });

  it("asking again counts each call once (it reads only the events appended since it last looked)", async () => {
    await using t = testServices("sqlite", { provider: reviewCycle(), model: MODEL });
    const { instanceId } = await t.services.orchestrator.create({ spec: "review-cycle", input: "x" });
    await t.settled(instanceId);
    const first = (await t.services.usage.forInstance(instanceId));
    expect((await t.services.usage.forInstance(instanceId))).toEqual(first);
  });
});

describe("the model price table file", () => {
  it("reads currency and per-model prices (exact names beat prefixes), prices cached tokens at the cache price, and says what is wrong in a bad file", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "modex-prices-"));
    try {
      const file = path.join(dir, "model-prices.yml");
      expect(ModelPrices.fromFile(file).configured).toBe(false);
      writeFileSync(file, "currency: USD\nmodels:\n  gpt-4o: { input: 2.5, output: 10, cache_read: 1.25 }\n  'gpt-*': { input: 1, output: 1 }\n");
      const prices = ModelPrices.fromFile(file);
      const usage = { inputTokens: 1_000_000, outputTokens: 100_000, reasoningTokens: 0, cacheReadTokens: 400_000, cacheCreationTokens: 0 };
      expect(prices.costOf("gpt-4o", usage)).toBeCloseTo(600_000 * 2.5e-6 + 400_000 * 1.25e-6 + 100_000 * 10e-6, 9);
      expect(prices.costOf("gpt-4o-mini", usage)).toBeCloseTo(1.1, 9);
      expect(prices.costOf("llama3", usage)).toBeNull();
      writeFileSync(file, "models:\n  gpt-4o: { input: -1, output: 10 }\n");
      expect(() => ModelPrices.fromFile(file)).toThrow(/models\["gpt-4o"\]\.input/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
