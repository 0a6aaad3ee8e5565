import { describe, expect, it } from "vitest";
import { LlmProvider, type LlmStreamOptions } from "@/server/agent/llm/llm-provider";
import type { LlmRequest } from "@/server/agent/llm/messages";
import type { LLMStreamEvent } from "@/server/agent/llm/stream-events";
import { estimateUsage } from "@/server/agent/llm/usage-estimate";
import type { ChatEvent } from "../chat-service";
import { testServices } from "../testing/test-services";

/**
 * The first call streams one word, then stalls until its signal aborts (a model that went quiet, or a
 * long pause between tokens): a path-A cancel, drained between stream events, would not see a cancel
 * until the next token. Later calls answer at once.
 */
class StallingProvider extends LlmProvider {
  readonly name = "stalling";
  readonly requests: LlmRequest[] = [];
  abortedAt: number | null = null;
  async *stream(request: LlmRequest, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
    this.requests.push(structuredClone(request));
    if (this.requests.length === 1) {
      yield { type: "text_delta", text: "Once upon a time" };
      await new Promise<void>((resolve) => options.signal.addEventListener("abort", () => resolve(), { once: true }));
      this.abortedAt = Date.now();
      throw new DOMException("aborted", "AbortError");
    }
    const last = request.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
    yield { type: "text_delta", text: `You said: ${last}` };
    yield { type: "finish", reason: "stop" };
  }
}

const agentYaml = (name: string, busy?: string) =>
  `name: ${name}\ndescription: Tells stories.\ninstructions: You tell stories.\ntools: []\n${busy ? `busy_input: ${busy}\n` : ""}`;

const firstToken = async (events: () => Promise<ChatEvent[]>, turnId: string) => {
  for (let i = 0; i < 200 && !(await events()).some((e) => e.turnId === turnId && e.type === "text_delta"); i++) await new Promise((r) => setTimeout(r, 5));
};

describe("busy input per agent (SQLite)", () => {
  it("a chat follows its agent's busy_input: the definition's mode is the chat's, shown in its summary and status", async () => {
    await using t = testServices("sqlite", { chatProvider: new StallingProvider() });
    t.services.agents.save(agentYaml("teller", "INTERRUPT"));
    t.services.agents.save(agentYaml("helper"));
    const chat = t.services.chat;
    const teller = await chat.create({ agent: "teller" });
    const helper = await chat.create({ agent: "helper" });
    expect(teller.busyInput).toBe("INTERRUPT");
    expect(helper.busyInput).toBe("QUEUE");
    expect((await chat.list()).find((s) => s.sessionId === teller.sessionId)?.busyInput).toBe("INTERRUPT");
    expect(t.services.agents.find("teller")?.definition.busy_input).toBe("INTERRUPT");
  });

  it("INTERRUPT is path B: the running turn's task is aborted at once (no next stream event needed), keeps what streamed, and the new message runs", async () => {
    const provider = new StallingProvider();
    await using t = testServices("sqlite", { chatProvider: provider });
    t.services.agents.save(agentYaml("teller", "INTERRUPT"));
    const chat = t.services.chat;
    const sent = await chat.send({ message: "tell me a long story", agent: "teller" });
    const { sessionId } = sent;
    const turnId = sent.turnId!;
    await firstToken(() => chat.events(sessionId), turnId);

    const sentAt = Date.now();
    expect(await chat.send({ sessionId, message: "a short one instead" })).toMatchObject({ handled: "interrupted", mode: "INTERRUPT", turnId });
    await chat.idle(sessionId);
    expect(provider.abortedAt).not.toBeNull();
    expect(provider.abortedAt! - sentAt).toBeLessThan(250);

    const events = await chat.events(sessionId);
    const ended = events.find((e) => e.turnId === turnId && e.type === "turn_completed");
    expect(ended).toMatchObject({ stopReason: "interrupted", content: "Once upon a time" });
    // The interrupted call's usage never came: its tokens are the client's estimate, marked ("Once upon a time": 16 characters, 4 tokens).
    expect(ended).toMatchObject({ outputTokens: 4, estimated: true });
    expect(ended?.type === "turn_completed" && ended.inputTokens).toBeGreaterThan(0);
    expect(events.find((e) => e.type === "busy_input")).toMatchObject({ mode: "INTERRUPT", text: "a short one instead" });
    const next = events.filter((e) => e.turnId !== turnId);
    expect(next.map((e) => e.type).filter((k) => k !== "text_delta")).toEqual(["queued_started", "user_message", "turn_completed"]);
    expect(next.at(-1)).toMatchObject({ type: "turn_completed", stopReason: "completed", content: "You said: a short one instead" });

    // The agent's memory keeps the interrupted exchange, marked, so the next turn's model call sees it.
    const seen = provider.requests[1].messages.map((m) => `${m.role}:${m.content}`);
    expect(seen).toEqual(expect.arrayContaining(["user:tell me a long story", "assistant:<interrupted>Once upon a time</interrupted>", "user:a short one instead"]));
    expect((await chat.get(sessionId))).toMatchObject({ running: false, queued: 0, turns: 2 });
  });

  it("a message can override the agent's mode: busyInput INTERRUPT on a QUEUE agent interrupts, QUEUE on an INTERRUPT agent queues", async () => {
    const provider = new StallingProvider();
    await using t = testServices("sqlite", { chatProvider: provider });
    t.services.agents.save(agentYaml("helper"));
    const chat = t.services.chat;
    const sent = await chat.send({ message: "go on and on", agent: "helper" });
    const { sessionId } = sent;
    const turnId = sent.turnId!;
    await firstToken(() => chat.events(sessionId), turnId);
    expect(await chat.send({ sessionId, message: "stop, this instead", busyInput: "INTERRUPT" })).toMatchObject({ handled: "interrupted", mode: "INTERRUPT" });
    await chat.idle(sessionId);
    expect((await chat.events(sessionId)).find((e) => e.turnId === turnId && e.type === "turn_completed")).toMatchObject({ stopReason: "interrupted" });
    expect((await chat.get(sessionId)).busyInput).toBe("QUEUE");
  });

  it("an interrupted turn reports the tokens of the model calls that finished before the interrupt, plus the cut call's estimate", async () => {
    class ToolThenStall extends StallingProvider {
      async *stream(request: LlmRequest, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
        if (this.requests.length === 0) {
          this.requests.push(structuredClone(request));
          yield { type: "tool_call_complete", call: { id: "c1", name: "todo_write", arguments: JSON.stringify({ todos: [{ content: "tell it", status: "in_progress" }] }) } };
          yield { type: "usage_snapshot", usage: { inputTokens: 30, outputTokens: 7, reasoningTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 } };
          yield { type: "finish", reason: "tool_calls" };
          return;
        }
        if (this.requests.length === 1) {
          this.requests.push(structuredClone(request));
          yield { type: "text_delta", text: "Once" };
          await new Promise<void>((resolve) => options.signal.addEventListener("abort", () => resolve(), { once: true }));
          throw new DOMException("aborted", "AbortError");
        }
        yield* super.stream(request, options); // later turns answer at once (the base stalls on its first call only)
      }
    }
    const provider = new ToolThenStall();
    await using t = testServices("sqlite", { chatProvider: provider });
    t.services.agents.save(agentYaml("teller", "INTERRUPT").replace("tools: []", "tools: [todo_write]"));
    const chat = t.services.chat;
    const sent = await chat.send({ message: "plan a story", agent: "teller" });
    await firstToken(() => chat.events(sent.sessionId), sent.turnId!);
    await chat.send({ sessionId: sent.sessionId, message: "never mind" });
    await chat.idle(sent.sessionId);
    const ended = (await chat.events(sent.sessionId)).find((e) => e.turnId === sent.turnId && e.type === "turn_completed");
    // The finished call's reported 30 + 7, and the interrupted one's estimate (its usage never came), marked.
    const cut = estimateUsage(provider.requests[1], { content: "Once", reasoning: "", toolCalls: [] });
    expect(cut.outputTokens).toBe(1);
    expect(ended).toMatchObject({ stopReason: "interrupted", tokens: 37 + cut.inputTokens + 1, inputTokens: 30 + cut.inputTokens, outputTokens: 8, estimated: true });
  });

  it("INTERRUPT on a turn resumed after an approval: its message and what streamed still reach the agent's memory", async () => {
    class AskThenStall extends StallingProvider {
      async *stream(request: LlmRequest, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
        if (this.requests.length === 0) {
          this.requests.push(structuredClone(request));
          yield { type: "tool_call_complete", call: { id: "c1", name: "todo_write", arguments: JSON.stringify({ todos: [{ content: "tell it", status: "in_progress" }] }) } };
          yield { type: "finish", reason: "tool_calls" };
          return;
        }
        if (this.requests.length === 1) {
          this.requests.push(structuredClone(request));
          yield { type: "text_delta", text: "Chapter one" };
          await new Promise<void>((resolve) => options.signal.addEventListener("abort", () => resolve(), { once: true }));
          throw new DOMException("aborted", "AbortError");
        }
        yield* super.stream(request, options);
      }
    }
    const provider = new AskThenStall();
    await using t = testServices("sqlite", { chatProvider: provider });
    t.services.agents.save(agentYaml("teller", "INTERRUPT").replace("tools: []", "tools: [todo_write]\napproval:\n  tools: [todo_write]"));
    const chat = t.services.chat;
    const sent = await chat.send({ message: "plan then tell", agent: "teller" });
    await chat.idle(sent.sessionId); // suspended on the approval
    await chat.decidePending({ sessionId: sent.sessionId, approved: true });
    for (let i = 0; i < 200 && !(await chat.events(sent.sessionId)).some((e) => e.type === "text_delta"); i++) await new Promise((r) => setTimeout(r, 5));
    expect(await chat.send({ sessionId: sent.sessionId, message: "enough" })).toMatchObject({ handled: "interrupted" });
    await chat.idle(sent.sessionId);
    expect((await chat.events(sent.sessionId)).find((e) => e.turnId === sent.turnId && e.type === "turn_completed")).toMatchObject({ stopReason: "interrupted", content: "Chapter one" });
    const seen = provider.requests[2].messages.map((m) => `${m.role}:${m.content}`);
    expect(seen).toEqual(expect.arrayContaining(["user:plan then tell", "assistant:<interrupted>Chapter one</interrupted>", "user:enough"]));
  });

  it("deleting a chat aborts its running turn's task at once (path B) and keeps nothing of it", async () => {
    const provider = new StallingProvider();
    await using t = testServices("sqlite", { chatProvider: provider });
    const chat = t.services.chat;
    const sent = await chat.send({ message: "go on and on" });
    await firstToken(() => chat.events(sent.sessionId), sent.turnId!);
    const at = Date.now();
    await chat.remove(sent.sessionId);
    for (let i = 0; i < 100 && provider.abortedAt === null; i++) await new Promise((r) => setTimeout(r, 5));
    expect(provider.abortedAt! - at).toBeLessThan(250);
    expect((await chat.list())).toEqual([]);
    await new Promise((r) => setTimeout(r, 50)); // the aborted turn's exit hooks write its spans before the database closes
  });
});
