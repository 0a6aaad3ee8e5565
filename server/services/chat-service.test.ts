import { describe, expect, it } from "vitest";
import { z } from "zod";
import { LlmProvider, type LlmStreamOptions } from "@/server/agent/llm/llm-provider";
import type { LLMStreamEvent } from "@/server/agent/llm/stream-events";
import { defineTool } from "@/server/agent/tools/tool";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { NO_MODEL_MESSAGE } from "./agent-nodes";
import { chatEventStream, ChatService, type ChatEvent } from "./chat-service";
import { deployTool } from "./chat/testing/chat-fixtures";

/** Streams a word every 20 ms for a long time, honouring the abort signal as a real provider must. */
class SlowProvider extends LlmProvider {
  readonly name = "slow";
  async *stream(_request: unknown, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
    for (let i = 0; i < 500; i++) {
      await new Promise((r) => setTimeout(r, 20));
      if (options.signal.aborted) throw new DOMException("aborted", "AbortError");
      yield { type: "text_delta", text: `word${i} ` };
    }
    yield { type: "finish", reason: "stop" };
  }
}

const kinds = (events: ChatEvent[]) => events.map((e) => e.type).filter((t) => t !== "text_delta" && t !== "reasoning_delta");

/** Waits for the turn's first `type` event, presses Stop, and checks the turn ended cancelled within a second. */
async function stopOnceSeen(chat: ChatService, sessionId: string, turnId: string | null, type: string) {
  for (let i = 0; i < 200 && !(await chat.events(sessionId)).some((e) => e.type === type); i++) await new Promise((r) => setTimeout(r, 5));
  const stopped = Date.now();
  expect(await chat.cancel(sessionId)).toEqual({ cancelled: true });
  await chat.idle(sessionId);
  expect(Date.now() - stopped).toBeLessThan(1_000);
  expect((await chat.events(sessionId)).at(-1)).toMatchObject({ type: "turn_completed", turnId, stopReason: "cancelled" });
}

describe("ChatService", () => {
  it("without a model it says what to set, and refuses to send", async () => {
    const chat = new ChatService({ provider: null, model: null });
    expect(chat.status()).toEqual({ configured: false, model: null, message: NO_MODEL_MESSAGE, defaultAgent: null, busyInput: "QUEUE" });
    await expect(chat.send({ message: "hi" })).rejects.toThrow(expect.objectContaining({ code: "INVALID_STATE", message: NO_MODEL_MESSAGE }));
  });

  it("runs one agent turn per message: user message, streamed text, tool call and result, then the completed turn", async () => {
    const provider = new ScriptedProvider([
      { text: "Planning. ", toolCalls: [{ name: "todo_write", args: { todos: [{ content: "answer", status: "in_progress" }] } }] },
      { text: "Paris is the capital of France." },
    ]);
    const chat = new ChatService({ provider, model: "scripted" });
    const { sessionId, turnId } = await chat.send({ message: "What is the capital of France?" });
    await chat.idle(sessionId);
    const events = await chat.events(sessionId);
    expect(kinds(events)).toEqual(["user_message", "tool_call", "tool_result", "turn_completed"]);
    expect(events.filter((e) => e.type === "text_delta").map((e) => (e.type === "text_delta" ? e.text : "")).join("")).toBe("Planning. Paris is the capital of France.");
    expect(events.at(-1)).toMatchObject({ type: "turn_completed", turnId, stopReason: "completed", content: "Paris is the capital of France." });
    expect((await chat.list())).toEqual([expect.objectContaining({ sessionId, title: "What is the capital of France?", turns: 1, running: false })]);
  });

  it("keeps the conversation: a second message in the session sees the first exchange", async () => {
    const provider = new ScriptedProvider([{ text: "Hello, Ada." }, { text: "Your name is Ada." }]);
    const chat = new ChatService({ provider, model: "scripted" });
    const { sessionId } = await chat.send({ message: "I am Ada." });
    await chat.idle(sessionId);
    await chat.send({ sessionId, message: "What is my name?" });
    await chat.idle(sessionId);
    const second = provider.requests[1].messages.map((m) => m.content);
    expect(second).toEqual(expect.arrayContaining(["I am Ada.", "Hello, Ada.", "What is my name?"]));
  });

  it("stop cancels the running turn through the control plane, keeping what streamed", async () => {
    const chat = new ChatService({ provider: new SlowProvider(), model: "slow" });
    const { sessionId } = await chat.send({ message: "Tell me everything." });
    await new Promise((r) => setTimeout(r, 60));
    expect(await chat.cancel(sessionId)).toEqual({ cancelled: true });
    await chat.idle(sessionId);
    const events = await chat.events(sessionId);
    expect(events.at(-1)).toMatchObject({ type: "turn_completed", stopReason: "cancelled" });
    expect(events.some((e) => e.type === "text_delta")).toBe(true);
    expect(await chat.cancel(sessionId)).toEqual({ cancelled: false });
    // The provider's usage would have come at the end: the turn's tokens are estimated from what streamed, and say so.
    const streamed = events.map((e) => (e.type === "text_delta" ? e.text : "")).join("");
    const end = events.at(-1)!;
    expect(end).toMatchObject({ estimated: true, outputTokens: Math.ceil(streamed.length / 4) });
    expect(end.type === "turn_completed" && end.tokens).toBe(end.type === "turn_completed" && end.inputTokens! + end.outputTokens!);
  });

  it("stop while the model is silent (thinking, loading) aborts the request and ends the turn at once", async () => {
    let aborted = false;
    class Thinking extends LlmProvider {
      readonly name = "thinking";
      async *stream(_request: unknown, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
        yield { type: "text_delta", text: "Let me think" };
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 5_000);
          options.signal.addEventListener("abort", () => ((aborted = true), clearTimeout(timer), resolve()));
        });
        yield { type: "finish", reason: "stop" };
      }
    }
    const chat = new ChatService({ provider: new Thinking(), model: "thinking" });
    const { sessionId, turnId } = await chat.send({ message: "Think hard." });
    await stopOnceSeen(chat, sessionId, turnId, "text_delta");
    expect(aborted).toBe(true);
  });

  it("stop during a long tool aborts the tool and ends the turn at once, not when the tool would finish", async () => {
    let aborted = false;
    const crawl = defineTool({
      name: "crawl",
      description: "A slow read that honours its signal",
      args: z.object({}),
      readOnly: true,
      execute: (_args, ctx) =>
        new Promise<string>((resolve) => {
          const timer = setTimeout(() => resolve("crawled"), 5_000);
          ctx.signal.addEventListener("abort", () => ((aborted = true), clearTimeout(timer), resolve("aborted")));
        }),
    });
    const provider = new ScriptedProvider([{ text: "Crawling. ", toolCalls: [{ name: "crawl", args: {} }] }, { text: "never" }]);
    const chat = new ChatService({ provider, model: "scripted", tools: [crawl] });
    const { sessionId, turnId } = await chat.send({ message: "crawl the site" });
    await stopOnceSeen(chat, sessionId, turnId, "tool_call");
    expect(aborted).toBe(true);
    expect(provider.requests).toHaveLength(1);
  });

  it("the event stream replays after a sequence number, then follows live", async () => {
    const provider = new ScriptedProvider([{ text: "one" }, { text: "two" }]);
    const chat = new ChatService({ provider, model: "scripted" });
    const { sessionId } = await chat.send({ message: "first" });
    await chat.idle(sessionId);
    const firstTurn = await chat.events(sessionId);
    const abort = new AbortController();
    const seen: ChatEvent[] = [];
    const reading = (async () => {
      for await (const e of chatEventStream(chat, sessionId, firstTurn[1].seq, abort.signal)) {
        seen.push(e);
        if (e.type === "turn_completed" && e.content === "two") abort.abort();
      }
    })();
    await chat.send({ sessionId, message: "second" });
    await reading;
    expect(seen[0].seq).toBe(firstTurn[2].seq);
    expect(seen.map((e) => e.seq)).toEqual([...seen.map((e) => e.seq)].sort((a, b) => a - b));
    expect(kinds(seen)).toEqual(["turn_completed", "user_message", "turn_completed"]);
  });
});

describe("ChatService failures", () => {
  it("a model failure ends the turn with the provider's message, and the chat stays usable", async () => {
    const provider = new ScriptedProvider([{ fail: { message: "model server answered 503" } }, { text: "Back again." }]);
    const chat = new ChatService({ provider, model: "scripted" });
    const { sessionId } = await chat.send({ message: "hi" });
    await chat.idle(sessionId);
    const end = (await chat.events(sessionId)).at(-1);
    expect(end).toMatchObject({ type: "turn_completed", stopReason: "error" });
    expect(end?.type === "turn_completed" && end.error).toContain("503");
    await chat.send({ sessionId, message: "again" });
    await chat.idle(sessionId);
    expect((await chat.events(sessionId)).at(-1)).toMatchObject({ type: "turn_completed", stopReason: "completed", content: "Back again." });
  });

  it("a subscriber that throws is logged; the turn, the other subscribers and later events go on", async () => {
    const provider = new ScriptedProvider([{ text: "First." }, { text: "Second." }, { text: "Third." }]);
    const chat = new ChatService({ provider, model: "scripted" });
    const { sessionId } = await chat.send({ message: "one" });
    await chat.idle(sessionId);
    const firstTurnEnd = (await chat.events(sessionId)).at(-1)!.seq;
    const logged: unknown[][] = [];
    const error = console.error;
    console.error = (...args: unknown[]) => void logged.push(args);
    try {
      const before: ChatEvent[] = [];
      const after: ChatEvent[] = [];
      chat.subscribe(sessionId, (e) => before.push(e));
      chat.subscribe(sessionId, () => {
        throw new Error("subscriber broke");
      });
      chat.subscribe(sessionId, (e) => after.push(e));
      await chat.send({ sessionId, message: "two" });
      await chat.idle(sessionId);
      const stored = await chat.events(sessionId, firstTurnEnd);
      expect(stored.at(-1)).toMatchObject({ type: "turn_completed", stopReason: "completed", content: "Second." });
      expect(before).toEqual(stored);
      expect(after).toEqual(stored);
      expect(logged.filter(([message]) => String(message).includes("chat event listener failed"))).toHaveLength(stored.length);
      await chat.send({ sessionId, message: "three" });
      await chat.idle(sessionId);
      expect(after.at(-1)).toMatchObject({ type: "turn_completed", content: "Third." });
    } finally {
      console.error = error;
    }
  });
});

describe("ChatService approvals", () => {
  function setup() {
    const { tool, deployed } = deployTool();
    const provider = new ScriptedProvider([{ text: "Deploying. ", toolCalls: [{ name: "deploy", args: { service: "web" } }] }, { text: "All set." }]);
    let clock = 1_000;
    const chat = new ChatService({ provider, model: "scripted", tools: [tool], now: () => ++clock });
    return { chat, provider, deployed };
  }

  async function requested(chat: ChatService, sessionId: string) {
    for (let i = 0; i < 200; i++) {
      const e = (await chat.events(sessionId)).find((x) => x.type === "approval_requested");
      if (e?.type === "approval_requested") return e;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error("no approval_requested event");
  }

  it("a turn that needs approval publishes approval_requested and waits; a message meanwhile is queued; stop ends the waiting turn", async () => {
    const { chat, deployed } = setup();
    const { sessionId, turnId } = await chat.send({ message: "deploy web" });
    const request = await requested(chat, sessionId);
    expect(request).toMatchObject({ turnId, name: "deploy", arguments: '{"service":"web"}' });
    expect(kinds((await chat.events(sessionId)))).toEqual(["user_message", "tool_call", "approval_requested"]);
    expect(deployed).toEqual([]);
    expect((await chat.list())[0]).toMatchObject({ running: true, awaitingApproval: true });
    expect(await chat.send({ sessionId, message: "hello?" })).toMatchObject({ handled: "queued", mode: "QUEUE", turnId });
    expect(await chat.cancel(sessionId)).toEqual({ cancelled: true });
    await chat.idle(sessionId);
    const events = await chat.events(sessionId);
    expect(kinds(events)).toEqual(["user_message", "tool_call", "approval_requested", "busy_input", "approval_decided", "turn_completed", "queued_started", "user_message", "turn_completed"]);
    expect(events.find((e) => e.type === "approval_decided")).toMatchObject({ approved: false, reason: "stopped" });
    expect(events.find((e) => e.type === "turn_completed")).toMatchObject({ turnId, stopReason: "cancelled" });
    expect(deployed).toEqual([]);
    await expect(chat.decide({ sessionId, transactionId: request.transactionId, approved: true })).rejects.toThrow(/already denied/);
  });

  it("approve: approval_decided (by you, when), then the tool runs and the same turn streams on to its answer", async () => {
    const { chat, provider, deployed } = setup();
    const { sessionId, turnId } = await chat.send({ message: "deploy web" });
    const request = await requested(chat, sessionId);
    const decision = await chat.decide({ sessionId, transactionId: request.transactionId, approved: true });
    expect(decision).toMatchObject({ transactionId: request.transactionId, approved: true, decidedAt: expect.any(Number) });
    await chat.idle(sessionId);
    const events = await chat.events(sessionId);
    expect(kinds(events)).toEqual(["user_message", "tool_call", "approval_requested", "approval_decided", "tool_result", "turn_completed"]);
    expect(events.find((e) => e.type === "approval_decided")).toMatchObject({ turnId, callId: request.callId, approved: true, reason: null, by: "you", at: decision.decidedAt });
    expect(events.find((e) => e.type === "tool_result")).toMatchObject({ name: "deploy", content: "deployed web", isError: false });
    expect(events.at(-1)).toMatchObject({ type: "turn_completed", turnId, stopReason: "completed", content: "All set." });
    expect(deployed).toEqual(["web"]);
    expect(provider.requests).toHaveLength(2); // the model is not asked again for the approved call
    expect((await chat.list())[0]).toMatchObject({ running: false, awaitingApproval: false });
  });

  it("deny with a reason: the tool does not run, the model reads the denial and the turn goes on", async () => {
    const { chat, provider, deployed } = setup();
    const { sessionId } = await chat.send({ message: "deploy web" });
    const request = await requested(chat, sessionId);
    await chat.decide({ sessionId, transactionId: request.transactionId, approved: false, reason: "  not on a Friday " });
    await chat.idle(sessionId);
    const events = await chat.events(sessionId);
    expect(events.find((e) => e.type === "approval_decided")).toMatchObject({ approved: false, reason: "not on a Friday" });
    expect(events.find((e) => e.type === "tool_result")).toMatchObject({ isError: true, content: expect.stringContaining("not on a Friday") });
    expect(events.at(-1)).toMatchObject({ type: "turn_completed", stopReason: "completed" });
    expect(deployed).toEqual([]);
    expect(provider.requests[1].messages.at(-1)).toMatchObject({ role: "tool", isError: true, content: expect.stringContaining("denied") });
    // the chat is free again, and the next turn sees the denied exchange
    await expect(chat.send({ sessionId, message: "ok" })).resolves.toMatchObject({ handled: "started" });
  });

  it("typed errors: unknown chat or transaction NOT_FOUND; deciding twice INVALID_STATE; another chat's transaction NOT_FOUND", async () => {
    const { chat } = setup();
    const { sessionId } = await chat.send({ message: "deploy web" });
    const request = await requested(chat, sessionId);
    const other = (await chat.send({ message: "and another" })).sessionId;
    await expect(chat.decide({ sessionId: "missing", transactionId: request.transactionId, approved: true })).rejects.toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
    await expect(chat.decide({ sessionId, transactionId: "nope", approved: true })).rejects.toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
    await expect(chat.decide({ sessionId: other, transactionId: request.transactionId, approved: true })).rejects.toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
    await chat.decide({ sessionId, transactionId: request.transactionId, approved: true });
    await expect(chat.decide({ sessionId, transactionId: request.transactionId, approved: false })).rejects.toThrow(
      expect.objectContaining({ code: "INVALID_STATE", message: expect.stringMatching(/already approved/) }),
    );
    await chat.idle(sessionId);
    await chat.idle(other);
    await expect(chat.decide({ sessionId, transactionId: request.transactionId, approved: true })).rejects.toThrow(expect.objectContaining({ code: "INVALID_STATE" }));
  });

  it("two calls that need approval in one batch suspend twice; each decision resumes the same turn", async () => {
    const { tool, deployed } = deployTool();
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: "deploy", args: { service: "a" } }, { name: "deploy", args: { service: "b" } }] },
      { text: "Deployed a." },
    ]);
    const chat = new ChatService({ provider, model: "scripted", tools: [tool] });
    const { sessionId } = await chat.send({ message: "deploy both" });
    const first = await requested(chat, sessionId);
    await chat.decide({ sessionId, transactionId: first.transactionId, approved: true });
    let second: ChatEvent | undefined;
    for (let i = 0; i < 200 && !second; i++) {
      second = (await chat.events(sessionId)).filter((e) => e.type === "approval_requested")[1];
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(second).toMatchObject({ type: "approval_requested", arguments: '{"service":"b"}' });
    await expect(chat.decide({ sessionId, transactionId: first.transactionId, approved: true })).rejects.toThrow(expect.objectContaining({ code: "INVALID_STATE" }));
    await chat.decide({ sessionId, transactionId: (second as { transactionId: string }).transactionId, approved: false });
    await chat.idle(sessionId);
    expect(deployed).toEqual(["a"]);
    expect((await chat.events(sessionId)).at(-1)).toMatchObject({ type: "turn_completed", content: "Deployed a." });
  });
});
