import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DEMO_SUMMARY_REQUEST_HEAD } from "../demo/demo-policy";
import type { ChatMessage } from "../llm/messages";
import { ScriptedProvider, type ScriptedReply } from "../llm/providers/scripted-provider";
import { ReactAgent } from "../react/react-agent";
import { InMemorySessionMemory } from "../react/session-memory";
import { createTurnState } from "../state/turn-state";
import { defineTool } from "../tools/tool";
import { CONSOLIDATION_PROMPT_HEAD } from "./consolidation";
import { ContextMemory, SUMMARY_TAG } from "./context-memory";
import type { ContextSummary, ContextSummaryStore } from "./context-summary";
import { MemoryConfigSchema, type MemoryConfigInput } from "./memory-config";
import type { MemoryHook, MemoryHookPoint } from "./memory-hook";
import { MemoryHookRunner } from "./memory-hook-runner";
import { estimateMessagesTokens } from "../llm/token-estimate";
import { TodoReorientationHook } from "./todo-reorientation-hook";

class Summaries implements ContextSummaryStore {
  readonly saved: ContextSummary[] = [];
  loadSummary(): ContextSummary | null {
    return this.saved.at(-1) ?? null;
  }
  saveSummary(_: string, summary: ContextSummary): void {
    this.saved.push(summary);
  }
}

/** The model: summary requests answer `summary`, chat requests answer "reply <n>". */
function model(summary: ScriptedReply = { text: "SUMMARY of the old part" }) {
  let n = 0;
  return new ScriptedProvider((request) => (request.messages[0]?.content.startsWith(CONSOLIDATION_PROMPT_HEAD) ? summary : { text: `reply ${++n} ${"r".repeat(200)}` }));
}

const isSummaryRequest = (r: { messages: ChatMessage[] }) => r.messages[0]?.content.startsWith(CONSOLIDATION_PROMPT_HEAD);

function setup(config: MemoryConfigInput, options: { summary?: ScriptedReply; hooks?: MemoryHook[] } = {}) {
  const provider = model(options.summary);
  const summaries = new Summaries();
  const memory = new InMemorySessionMemory();
  const hooks = new MemoryHookRunner();
  for (const h of options.hooks ?? []) hooks.register(h);
  const events: string[] = [];
  const context = new ContextMemory({ config: MemoryConfigSchema.parse(config), store: summaries, provider, hooks });
  const agent = () => new ReactAgent({ provider, memory, context, systemPrompt: "You help.", onEvent: (e) => events.push(e.type) });
  return { provider, summaries, memory, agent, events, context };
}

const question = (i: number) => `question ${i} ${"q".repeat(1_200)}`;

describe("ContextMemory", () => {
  it("sends the whole history while it is under the budget", async () => {
    const { provider, agent, summaries } = setup({ max_context_tokens: 100_000 });
    for (let i = 0; i < 3; i++) await agent().run(question(i), { sessionId: "s" });
    expect(provider.requests.filter(isSummaryRequest)).toHaveLength(0);
    expect(provider.requests.at(-1)!.messages).toHaveLength(1 + 5);
    expect(summaries.saved).toHaveLength(0);
  });

  it("over budget: one summary call, then summary + recent messages within the budget; the history stays whole", async () => {
    const budget = 2_000;
    const { provider, agent, summaries, memory, events } = setup({ max_context_tokens: budget, keep_recent_messages: 2 });
    for (let i = 0; i < 8; i++) await agent().run(question(i), { sessionId: "s" });
    const summaryCalls = provider.requests.filter(isSummaryRequest);
    expect(summaryCalls.length).toBeGreaterThan(0);
    expect(summaries.saved.length).toBe(summaryCalls.length);
    const last = provider.requests.at(-1)!;
    expect(last.messages[1].content).toContain(`<${SUMMARY_TAG}>`);
    expect(last.messages[1].content).toContain("SUMMARY of the old part");
    expect(last.messages.at(-1)!.content).toBe(question(7));
    expect(estimateMessagesTokens(last.messages)).toBeLessThanOrEqual(budget);
    expect(last.messages.some((m) => m.content === question(0))).toBe(false);
    expect(await memory.load("s")).toHaveLength(16); // every message is kept
    expect(events).toContain("context_summarized");
    const summary = summaries.saved.at(-1)!;
    expect(summary).toMatchObject({ mode: "consolidated", text: "SUMMARY of the old part" });
    expect(summary.tokensAfter).toBeLessThan(summary.tokensBefore);
  });

  it("a second summary takes in the previous one, so it covers the whole pruned part", async () => {
    const { provider, agent } = setup({ max_context_tokens: 2_000, keep_recent_messages: 2 });
    for (let i = 0; i < 14; i++) await agent().run(question(i), { sessionId: "s" });
    const summaryCalls = provider.requests.filter(isSummaryRequest);
    expect(summaryCalls.length).toBeGreaterThan(1);
    expect(summaryCalls.at(-1)!.messages[1].content).toContain("<previous-summary>\nSUMMARY of the old part");
  });

  it("reuses a stored summary: a new agent (a restart) starts from it without summarizing again", async () => {
    const { provider, agent, summaries } = setup({ max_context_tokens: 2_000, keep_recent_messages: 2 });
    for (let i = 0; i < 8; i++) await agent().run(question(i), { sessionId: "s" });
    const calls = provider.requests.filter(isSummaryRequest).length;
    const covered = summaries.saved.at(-1)!.coveredMessages;
    const before = provider.requests.length;
    await agent().run("short", { sessionId: "s" });
    const sent = provider.requests.slice(before);
    // The next turn holds the summary and only what came after it (it may summarize again once, never redo the old part).
    expect(sent.filter(isSummaryRequest).length).toBeLessThanOrEqual(1);
    const chat = sent.find((r) => !isSummaryRequest(r))!;
    expect(chat.messages[1].content).toContain(`<${SUMMARY_TAG}>`);
    expect(chat.messages.length).toBeLessThanOrEqual(2 + 16 - covered + 1);
    expect(calls).toBeGreaterThan(0);
  });

  it("ignores a stored summary whose messages changed under it", async () => {
    const { provider, agent, summaries, memory } = setup({ max_context_tokens: 2_000, keep_recent_messages: 2 });
    for (let i = 0; i < 8; i++) await agent().run(question(i), { sessionId: "s" });
    await memory.save("s", [{ role: "user", content: "another history" }]);
    const before = provider.requests.length;
    await agent().run("short", { sessionId: "s" });
    const chat = provider.requests.slice(before).find((r) => !isSummaryRequest(r))!;
    expect(chat.messages.map((m) => m.content)).toEqual(["You help.", "another history", "short"]);
    expect(summaries.saved.length).toBeGreaterThan(0);
  });

  it("prunes with a marker when consolidate is off, without a summary call", async () => {
    const { provider, agent, summaries } = setup({ max_context_tokens: 2_000, keep_recent_messages: 2, consolidate: false });
    for (let i = 0; i < 8; i++) await agent().run(question(i), { sessionId: "s" });
    expect(provider.requests.filter(isSummaryRequest)).toHaveLength(0);
    expect(summaries.saved.at(-1)).toMatchObject({ mode: "pruned" });
    expect(provider.requests.at(-1)!.messages[1].content).toMatch(/earliest messages were removed/);
  });

  it("prunes with a marker when the summary call fails", async () => {
    const { agent, summaries } = setup({ max_context_tokens: 2_000, keep_recent_messages: 2 }, { summary: { fail: { message: "context too long" } } });
    for (let i = 0; i < 8; i++) await agent().run(question(i), { sessionId: "s" });
    expect(summaries.saved.at(-1)).toMatchObject({ mode: "pruned" });
  });

  it("keeps a tool call and its results together in what it sends", async () => {
    const big = "t".repeat(3_000);
    let n = 0;
    const provider = new ScriptedProvider((request) => {
      if (isSummaryRequest(request)) return { text: "S" };
      n++;
      return n % 2 === 1 ? { toolCalls: [{ name: "lookup", args: {} }] } : { text: "done" };
    });
    const tool = defineTool({ name: "lookup", description: "looks up", args: z.object({}), execute: () => big });
    const context = new ContextMemory({ config: MemoryConfigSchema.parse({ max_context_tokens: 1_500, keep_recent_messages: 3 }), provider });
    const memory = new InMemorySessionMemory();
    for (let i = 0; i < 4; i++) {
      const outcome = await new ReactAgent({ provider, memory, context, tools: [tool] }).run(`q${i}`, { sessionId: "s" });
      expect(outcome).toMatchObject({ status: "finished", result: { stopReason: "completed" } });
    }
    expect(provider.requests.some(isSummaryRequest)).toBe(true);
    const chatRequests = provider.requests.filter((r) => !isSummaryRequest(r));
    expect(chatRequests.filter((r) => r.messages.some((m) => m.role === "tool")).length).toBeGreaterThan(1);
    for (const request of provider.requests.filter((r) => !isSummaryRequest(r))) {
      const calls = new Set(request.messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : [])));
      for (const m of request.messages) if (m.role === "tool") expect(calls.has(m.toolCallId)).toBe(true);
    }
  });

  it("within a turn, trusts the provider's reported input tokens of the previous call over a lower estimate", async () => {
    let n = 0;
    // The first call reports 5,000 input tokens (a tokenizer far less thrifty than four characters a token).
    const provider = new ScriptedProvider((request) => {
      if (isSummaryRequest(request)) return { text: "S" };
      n++;
      return n === 3 ? { toolCalls: [{ name: "lookup", args: {} }], usage: { inputTokens: 5_000 } } : { text: "done", usage: { inputTokens: 10 } };
    });
    const tool = defineTool({ name: "lookup", description: "looks up", args: z.object({}), execute: () => "found" });
    const context = new ContextMemory({ config: MemoryConfigSchema.parse({ max_context_tokens: 2_000, keep_recent_messages: 1 }), provider });
    const memory = new InMemorySessionMemory();
    for (let i = 0; i < 3; i++) {
      const outcome = await new ReactAgent({ provider, memory, context, tools: [tool] }).run(`short ${i}`, { sessionId: "s" });
      expect(outcome).toMatchObject({ status: "finished", result: { stopReason: "completed" } });
    }
    // Estimated, every request is tiny: only the reported count puts the turn's second call over budget.
    const summaryAt = provider.requests.findIndex(isSummaryRequest);
    expect(summaryAt).toBe(3);
    expect(estimateMessagesTokens(provider.requests[2].messages)).toBeLessThan(200);
  });

  it("fires the memory hooks in order; CORE_MEMORY_UPDATED never", async () => {
    const seen: MemoryHookPoint[] = [];
    const recorder: MemoryHook = {
      name: "recorder",
      CLEANUP_TRIGGERED: () => void seen.push("CLEANUP_TRIGGERED"),
      CONSOLIDATION_FINISHED: () => void seen.push("CONSOLIDATION_FINISHED"),
      CLEANUP_FINISHED: () => void seen.push("CLEANUP_FINISHED"),
      CONTEXT_ASSEMBLED: () => void seen.push("CONTEXT_ASSEMBLED"),
      CORE_MEMORY_UPDATED: () => void seen.push("CORE_MEMORY_UPDATED"),
    };
    const broken: MemoryHook = { name: "broken", CLEANUP_TRIGGERED: () => { throw new Error("boom"); } };
    const { agent } = setup({ max_context_tokens: 2_000, keep_recent_messages: 2 }, { hooks: [broken, recorder] });
    for (let i = 0; i < 8; i++) await agent().run(question(i), { sessionId: "s" });
    const first = seen.indexOf("CLEANUP_TRIGGERED");
    expect(seen.slice(first, first + 4)).toEqual(["CLEANUP_TRIGGERED", "CONSOLIDATION_FINISHED", "CLEANUP_FINISHED", "CONTEXT_ASSEMBLED"]);
    expect(seen).not.toContain("CORE_MEMORY_UPDATED");
  });

  it("the todo reorientation hook re-states open todos pruned out of sight", async () => {
    const todos = JSON.stringify({ todos: [{ content: "book the room", status: "pending" }] });
    const messages: ChatMessage[] = [
      { role: "user", content: "plan" },
      { role: "assistant", content: "", toolCalls: [{ id: "t1", name: "todo_write", arguments: todos }] },
      { role: "tool", toolCallId: "t1", name: "todo_write", content: "ok", isError: false },
      ...Array.from({ length: 8 }, (_, i): ChatMessage => ({ role: i % 2 ? "assistant" : "user", content: question(i) })),
    ];
    const hooks = new MemoryHookRunner().register(new TodoReorientationHook());
    const context = new ContextMemory({ config: MemoryConfigSchema.parse({ max_context_tokens: 2_000, keep_recent_messages: 2, consolidate: false }), provider: model(), hooks });
    const turn = createTurnState({ sessionId: "s", turnId: "t", messages, maxIterations: 5, maxTurns: 1 });
    const sent = await context.assemble({ turn, system: [], tools: [], signal: new AbortController().signal });
    expect(sent.at(-1)!.content).toContain("book the room");
    expect(turn.messages).toHaveLength(11); // the history is not changed
  });

  it("the demo model recognizes the summary request", () => {
    expect(DEMO_SUMMARY_REQUEST_HEAD).toBe(CONSOLIDATION_PROMPT_HEAD);
  });
});
