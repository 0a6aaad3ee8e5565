import { describe, expect, it } from "vitest";
import { LlmProvider, type LlmStreamOptions } from "@/server/agent/llm/llm-provider";
import type { LLMStreamEvent } from "@/server/agent/llm/stream-events";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { NO_MODEL_MESSAGE } from "./agent-nodes";
import { chatEventStream, ChatService, type ChatEvent } from "./chat-service";

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

describe("ChatService", () => {
  it("without a model it says what to set, and refuses to send", () => {
    const chat = new ChatService({ provider: null, model: null });
    expect(chat.status()).toEqual({ configured: false, model: null, message: NO_MODEL_MESSAGE });
    expect(() => chat.send({ message: "hi" })).toThrow(expect.objectContaining({ code: "INVALID_STATE", message: NO_MODEL_MESSAGE }));
  });

  it("runs one agent turn per message: user message, streamed text, tool call and result, then the completed turn", async () => {
    const provider = new ScriptedProvider([
      { text: "Planning. ", toolCalls: [{ name: "todo_write", args: { todos: [{ content: "answer", status: "in_progress" }] } }] },
      { text: "Paris is the capital of France." },
    ]);
    const chat = new ChatService({ provider, model: "scripted" });
    const { sessionId, turnId } = chat.send({ message: "What is the capital of France?" });
    await chat.idle(sessionId);
    const events = chat.events(sessionId);
    expect(kinds(events)).toEqual(["user_message", "tool_call", "tool_result", "turn_completed"]);
    expect(events.filter((e) => e.type === "text_delta").map((e) => (e.type === "text_delta" ? e.text : "")).join("")).toBe("Planning. Paris is the capital of France.");
    expect(events.at(-1)).toMatchObject({ type: "turn_completed", turnId, stopReason: "completed", content: "Paris is the capital of France." });
    expect(chat.list()).toEqual([expect.objectContaining({ sessionId, title: "What is the capital of France?", turns: 1, running: false })]);
  });

  it("keeps the conversation: a second message in the session sees the first exchange", async () => {
    const provider = new ScriptedProvider([{ text: "Hello, Ada." }, { text: "Your name is Ada." }]);
    const chat = new ChatService({ provider, model: "scripted" });
    const { sessionId } = chat.send({ message: "I am Ada." });
    await chat.idle(sessionId);
    chat.send({ sessionId, message: "What is my name?" });
    await chat.idle(sessionId);
    const second = provider.requests[1].messages.map((m) => m.content);
    expect(second).toEqual(expect.arrayContaining(["I am Ada.", "Hello, Ada.", "What is my name?"]));
  });

  it("one turn at a time per chat; stop cancels the running turn through the control plane", async () => {
    const chat = new ChatService({ provider: new SlowProvider(), model: "slow" });
    const { sessionId } = chat.send({ message: "Tell me everything." });
    expect(() => chat.send({ sessionId, message: "again" })).toThrow(/already running/);
    await new Promise((r) => setTimeout(r, 60));
    expect(chat.cancel(sessionId)).toEqual({ cancelled: true });
    await chat.idle(sessionId);
    expect(chat.events(sessionId).at(-1)).toMatchObject({ type: "turn_completed", stopReason: "cancelled" });
    expect(chat.cancel(sessionId)).toEqual({ cancelled: false });
  });

  it("the event stream replays after a sequence number, then follows live", async () => {
    const provider = new ScriptedProvider([{ text: "one" }, { text: "two" }]);
    const chat = new ChatService({ provider, model: "scripted" });
    const { sessionId } = chat.send({ message: "first" });
    await chat.idle(sessionId);
    const firstTurn = chat.events(sessionId);
    const abort = new AbortController();
    const seen: ChatEvent[] = [];
    const reading = (async () => {
      for await (const e of chatEventStream(chat, sessionId, firstTurn[1].seq, abort.signal)) {
        seen.push(e);
        if (e.type === "turn_completed" && e.content === "two") abort.abort();
      }
    })();
    chat.send({ sessionId, message: "second" });
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
    const { sessionId } = chat.send({ message: "hi" });
    await chat.idle(sessionId);
    const end = chat.events(sessionId).at(-1);
    expect(end).toMatchObject({ type: "turn_completed", stopReason: "error" });
    expect(end?.type === "turn_completed" && end.error).toContain("503");
    chat.send({ sessionId, message: "again" });
    await chat.idle(sessionId);
    expect(chat.events(sessionId).at(-1)).toMatchObject({ type: "turn_completed", stopReason: "completed", content: "Back again." });
  });
});
