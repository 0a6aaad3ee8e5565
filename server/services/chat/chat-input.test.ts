import { describe, expect, it } from "vitest";
import { LlmProvider, type LlmStreamOptions } from "@/server/agent/llm/llm-provider";
import type { LlmRequest } from "@/server/agent/llm/messages";
import type { LLMStreamEvent } from "@/server/agent/llm/stream-events";
import { ChatService, type BusyInputMode, type ChatEvent } from "../chat-service";

/** Streams `words` words 15 ms apart per call (honouring abort), recording what each call was asked. */
class PacedProvider extends LlmProvider {
  readonly name = "paced";
  readonly requests: LlmRequest[] = [];
  constructor(private readonly words = 8) {
    super();
  }
  async *stream(request: LlmRequest, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
    this.requests.push(structuredClone(request));
    const n = this.requests.length;
    for (let i = 0; i < this.words; i++) {
      await new Promise((r) => setTimeout(r, 15));
      if (options.signal.aborted) throw new DOMException("aborted", "AbortError");
      yield { type: "text_delta", text: `c${n}w${i} ` };
    }
    yield { type: "finish", reason: "stop" };
  }
}

const kinds = (events: ChatEvent[]) => events.map((e) => e.type).filter((t) => t !== "text_delta" && t !== "reasoning_delta");
const chatWith = (busyInput: BusyInputMode, words = 8) => {
  const provider = new PacedProvider(words);
  return { provider, chat: new ChatService({ provider, model: "paced", busyInput }) };
};
const userTexts = (r: LlmRequest) => r.messages.filter((m) => m.role === "user").map((m) => m.content);

describe("busy input", () => {
  it("QUEUE: the message runs as the next turn once the running one completes", async () => {
    const { chat, provider } = chatWith("QUEUE");
    const { sessionId, turnId } = await chat.send({ message: "first" });
    await new Promise((r) => setTimeout(r, 30));
    expect(await chat.send({ sessionId, message: "second" })).toEqual({ sessionId, turnId, handled: "queued", mode: "QUEUE" });
    expect((await chat.get(sessionId))).toMatchObject({ running: true, queued: 1, busyInput: "QUEUE" });
    await chat.idle(sessionId);
    const events = await chat.events(sessionId);
    expect(kinds(events)).toEqual(["user_message", "busy_input", "turn_completed", "queued_started", "user_message", "turn_completed"]);
    expect(events.filter((e) => e.type === "turn_completed").map((e) => e.type === "turn_completed" && e.stopReason)).toEqual(["completed", "completed"]);
    expect(userTexts(provider.requests[1])).toEqual(["first", "second"]);
    expect((await chat.get(sessionId))).toMatchObject({ turns: 2, running: false, queued: 0 });
  });

  it("INTERRUPT: the running turn ends interrupted (path B) keeping what streamed, and the new message starts at once", async () => {
    const { chat, provider } = chatWith("INTERRUPT", 40);
    const { sessionId, turnId } = await chat.send({ message: "long story" });
    await new Promise((r) => setTimeout(r, 50));
    expect(await chat.send({ sessionId, message: "actually, stop that" })).toMatchObject({ handled: "interrupted", mode: "INTERRUPT", turnId });
    await chat.idle(sessionId);
    const events = await chat.events(sessionId);
    const first = events.filter((e) => e.turnId === turnId);
    expect(first.some((e) => e.type === "text_delta")).toBe(true);
    expect(first.find((e) => e.type === "turn_completed")).toMatchObject({ stopReason: "interrupted" });
    expect(kinds(events).slice(-3)).toEqual(["queued_started", "user_message", "turn_completed"]);
    expect(userTexts(provider.requests.at(-1)!).at(-1)).toBe("actually, stop that");
    expect(provider.requests).toHaveLength(2);
  });

  it("STEER: the message joins the running turn before its next model call (no new turn)", async () => {
    const provider = new (class extends PacedProvider {
      // First call asks for a tool, so the turn calls the model a second time.
      async *stream(request: LlmRequest, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
        if (this.requests.length === 0) {
          this.requests.push(structuredClone(request));
          await new Promise((r) => setTimeout(r, 60));
          yield { type: "tool_call_complete", call: { id: "c1", name: "todo_write", arguments: JSON.stringify({ todos: [{ content: "x", status: "in_progress" }] }) } };
          yield { type: "finish", reason: "tool_calls" };
          return;
        }
        yield* super.stream(request, options);
      }
    })(2);
    const chat = new ChatService({ provider, model: "paced", busyInput: "STEER" });
    const { sessionId, turnId } = await chat.send({ message: "plan it" });
    await new Promise((r) => setTimeout(r, 20));
    expect(await chat.send({ sessionId, message: "use French" })).toMatchObject({ handled: "steered", mode: "STEER", turnId });
    await chat.idle(sessionId);
    expect(provider.requests).toHaveLength(2);
    expect(userTexts(provider.requests[1])).toEqual(["plan it", "use French"]);
    const events = await chat.events(sessionId);
    expect(new Set(events.map((e) => e.turnId))).toEqual(new Set([turnId]));
    expect(events.find((e) => e.type === "notice")).toMatchObject({ command: "steer", text: "steered the turn: use French" });
  });
});

describe("slash commands (the input pipeline)", () => {
  it("/stop stops the running turn; /help lists the commands; an unknown command is answered, never sent to the model", async () => {
    const { chat, provider } = chatWith("QUEUE", 40);
    const { sessionId } = await chat.send({ message: "go" });
    await new Promise((r) => setTimeout(r, 40));
    expect(await chat.send({ sessionId, message: "/stop" })).toMatchObject({ handled: "command", command: "/stop", ok: true });
    await chat.idle(sessionId);
    expect(await chat.send({ sessionId, message: "/help" })).toMatchObject({ ok: true, message: expect.stringContaining("/deny [reason]") });
    expect(await chat.send({ sessionId, message: "/dance" })).toMatchObject({ ok: false, message: expect.stringMatching(/^unknown command \/dance/) });
    expect(await chat.send({ sessionId, message: "/approve" })).toMatchObject({ ok: false, message: "no tool call waits for approval in this chat" });
    expect(await chat.send({ sessionId, message: "/stop" })).toMatchObject({ ok: false, message: "no turn is running in this chat" });
    expect(provider.requests).toHaveLength(1);
    const notices = (await chat.events(sessionId)).filter((e) => e.type === "notice");
    expect(notices.map((e) => e.type === "notice" && [e.command, e.isError])).toEqual([
      ["/stop", false],
      ["/help", false],
      ["/dance", true],
      ["/approve", true],
      ["/stop", true],
    ]);
    expect(await chat.send({ message: "/help" })).toMatchObject({ sessionId: "", ok: true });
  });

  it("/new opens a new chat with the same agent", async () => {
    const { chat } = chatWith("QUEUE", 1);
    const { sessionId } = await chat.send({ message: "hi" });
    await chat.idle(sessionId);
    const made = await chat.send({ sessionId, message: "/new" });
    expect(made).toMatchObject({ handled: "command", command: "/new", ok: true });
    expect(made.sessionId).not.toBe(sessionId);
    expect((await chat.get(made.sessionId))).toMatchObject({ title: "New chat", turns: 0 });
  });
});

describe("chat housekeeping", () => {
  it("rename, search by title or message, delete", async () => {
    const { chat } = chatWith("QUEUE", 1);
    const a = await chat.send({ message: "weather in Oslo" });
    const b = await chat.send({ message: "deploy the web app" });
    await chat.idle(a.sessionId);
    await chat.idle(b.sessionId);
    expect((await chat.rename(a.sessionId, "  Trip planning ")).title).toBe("Trip planning");
    expect((await chat.list("trip")).map((s) => s.sessionId)).toEqual([a.sessionId]);
    expect((await chat.list("OSLO")).map((s) => s.sessionId)).toEqual([a.sessionId]);
    expect((await chat.list("web")).map((s) => s.sessionId)).toEqual([b.sessionId]);
    expect(await chat.remove(b.sessionId)).toEqual({ deleted: true });
    expect((await chat.list()).map((s) => s.sessionId)).toEqual([a.sessionId]);
    await expect(chat.events(b.sessionId)).rejects.toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
  });
});
