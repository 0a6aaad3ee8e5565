import { describe, expect, it } from "vitest";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { ChatService, type ChatEvent } from "../chat-service";
import { chatSseStream, endOfSentTurn, sseFrame } from "./chat-sse";
import { HangingProvider } from "./testing/chat-fixtures";

const ev = (type: string, turnId: string, extra: object = {}) => ({ type, turnId, seq: 1, sessionId: "s", at: 0, ...extra }) as ChatEvent;

describe("chat SSE", () => {
  it("frames an event with its seq as the id", () => {
    expect(sseFrame("text_delta", { text: "hi" }, 7)).toBe('id: 7\nevent: text_delta\ndata: {"text":"hi"}\n\n');
    expect(sseFrame("end", {})).toBe("event: end\ndata: {}\n\n");
  });

  it("a send's stream ends with its own turn, or, queued, with the turn its message starts later", () => {
    const started = endOfSentTurn({ sessionId: "s", turnId: "t1", handled: "started" }, "hi");
    expect(started(ev("text_delta", "t1"))).toBe(false);
    expect(started(ev("turn_completed", "t0"))).toBe(false);
    expect(started(ev("approval_requested", "t1"))).toBe(true);
    const queued = endOfSentTurn({ sessionId: "s", turnId: "t1", handled: "queued", mode: "QUEUE" }, " next ");
    expect(queued(ev("turn_completed", "t1"))).toBe(false);
    expect(queued(ev("queued_started", "t2", { text: "next" }))).toBe(false);
    expect(queued(ev("turn_completed", "t2"))).toBe(true);
  });

  it("streams a chat's events after a seq until told to stop", async () => {
    const chat = new ChatService({ provider: new ScriptedProvider([{ text: "one two" }]), model: "s" });
    const { sessionId } = await chat.create();
    const afterSeq = await chat.currentSeq(sessionId);
    const outcome = await chat.send({ sessionId, message: "go" });
    const body = chatSseStream({ chat, sessionId, afterSeq, until: endOfSentTurn(outcome, "go"), signal: new AbortController().signal });
    const text = await new Response(body).text();
    const events = [...text.matchAll(/^event: (.*)$/gm)].map((m) => m[1]);
    expect(events[0]).toBe("user_message");
    expect(events.slice(-2)).toEqual(["turn_completed", "end"]);
    expect(text).toMatch(/^id: \d+$/m);
  });

  it("a chat deleted while its streams are open ends them, saying so (they waited forever, sending keepalives)", async () => {
    const chat = new ChatService({ provider: new HangingProvider(), model: "s" });
    const { sessionId } = await chat.create();
    const afterSeq = await chat.currentSeq(sessionId);
    const outcome = await chat.send({ sessionId, message: "go" });
    const signal = new AbortController().signal;
    // A send's stream (it waits for the turn's end) and a follower's (it waits for anything).
    const sent = new Response(chatSseStream({ chat, sessionId, afterSeq, until: endOfSentTurn(outcome, "go"), signal })).text();
    const followed = new Response(chatSseStream({ chat, sessionId, afterSeq: 0, signal })).text();
    await new Promise((r) => setTimeout(r, 50));
    await chat.remove(sessionId);
    for (const text of await Promise.all([sent, followed])) {
      expect(text).toContain("event: user_message");
      expect(text.trimEnd().split("\n").slice(-2)).toEqual(["event: error", `data: {"code":"NOT_FOUND","message":"chat ${sessionId} was deleted"}`]);
    }
  });
});
