import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { newSnowflake } from "@/server/graph/ids";
import { chatEventStream, ChatService, type ChatEvent } from "../chat-service";
import { PgTokenTotals } from "../extensions/pg-token-totals";
import { PgChatStore } from "./pg-chat-store";
import { deployTool, eventKinds, HangingProvider, untilFound } from "./testing/chat-fixtures";
import { chatStoreTests } from "./testing/chat-store-suite";

const { tool: deploy, deployed } = deployTool();

describe("ChatStore on PostgreSQL", () => {
  let database: PgTestDatabase;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });
  /** New pools: what another process has. */
  const process = () => new PgChatStore(database.open().acks);

  chatStoreTests({ store: process, reopened: process, transactional: true, keepsOwner: true, tokenTotals: () => new PgTokenTotals(database.open().acks) });

  it("numbers one session's events from two processes so that a reader following by seq misses none", async () => {
    const sessionId = newSnowflake();
    const [a, b, follower] = [process(), process(), process()];
    const seen: ChatEvent[] = [];
    let writing = true;
    const follow = (async () => {
      for (let after = 0; writing || seen.length < 400; ) {
        const next = await follower.events(sessionId, after);
        for (const e of next) expect(e.seq).toBeGreaterThan(after), (after = e.seq), seen.push(e);
        if (next.length === 0) await new Promise((r) => setTimeout(r, 1));
      }
    })();
    // Each process streams 200 events in bursts (several per batch), at the same time.
    const stream = async (store: PgChatStore, name: string) => {
      for (let burst = 0; burst < 20; burst++) {
        const sent = Array.from({ length: 10 }, (_, i) => store.appendEvent({ type: "text_delta", text: `${name}${burst * 10 + i}`, sessionId, turnId: name, at: 1 }));
        await Promise.all(sent);
      }
    };
    await Promise.all([stream(a, "a"), stream(b, "b")]);
    writing = false;
    await follow;
    expect(seen).toHaveLength(400);
    expect(seen).toEqual(await follower.events(sessionId, 0));
    // Each process's events in the order it sent them.
    for (const name of ["a", "b"]) {
      expect(seen.filter((e) => e.turnId === name).map((e) => (e.type === "text_delta" ? e.text : ""))).toEqual(Array.from({ length: 200 }, (_, i) => `${name}${i}`));
    }
  });

  it("a chat on it: streamed, acknowledged, restarted in another process with its approval still waiting", async () => {
    const before = new ScriptedProvider([
      { text: "Hello, Ada." },
      { text: "Deploying. ", toolCalls: [{ name: "deploy", args: { service: "web" } }] },
    ]);
    const chat = new ChatService({ provider: before, model: "scripted", tools: [deploy], store: process() });
    const greeting = await chat.send({ message: "I am Ada." });
    const streamed: ChatEvent[] = [];
    const abort = new AbortController();
    const watching = (async () => {
      for await (const e of chatEventStream(chat, greeting.sessionId, 0, abort.signal)) {
        streamed.push(e);
        if (e.type === "turn_completed") break;
      }
    })();
    await chat.idle(greeting.sessionId);
    await watching;
    expect(eventKinds(streamed)).toEqual(["user_message", "turn_completed"]);
    const waiting = await chat.send({ message: "deploy web" });
    const request = await untilFound(async () => (await chat.events(waiting.sessionId)).find((e) => e.type === "approval_requested"));
    await chat.idle(waiting.sessionId);
    const hanging = new ChatService({ provider: new HangingProvider(), model: "hanging", store: process() });
    const orphan = await hanging.send({ message: "think hard" });
    await untilFound(async () => (await hanging.events(orphan.sessionId)).find((e) => e.type === "text_delta"));

    // Another process: what it reads is what was committed, and a restart there ends the orphaned turn.
    const after = new ScriptedProvider([{ text: "All set." }, { text: "You are Ada." }]);
    const restarted = new ChatService({ provider: after, model: "scripted", tools: [deploy], store: process() });
    expect(await restarted.events(greeting.sessionId)).toEqual(await chat.events(greeting.sessionId));
    expect(await restarted.get(waiting.sessionId)).toMatchObject({ running: true, awaitingApproval: true, turns: 1 });
    expect(await restarted.get(orphan.sessionId)).toMatchObject({ running: false });
    expect((await restarted.events(orphan.sessionId)).at(-1)).toMatchObject({ type: "turn_failed", turnId: orphan.turnId, message: expect.stringMatching(/server stopped/) });

    if (request.type !== "approval_requested") throw new Error("no request");
    await restarted.decide({ sessionId: waiting.sessionId, transactionId: request.transactionId, approved: true, reason: "go" });
    await restarted.idle(waiting.sessionId);
    expect(deployed).toEqual(["web"]);
    expect(after.requests).toHaveLength(1);
    expect(eventKinds(await restarted.events(waiting.sessionId)).slice(-3)).toEqual(["approval_decided", "tool_result", "turn_completed"]);
    await restarted.send({ sessionId: greeting.sessionId, message: "Who am I?" });
    await restarted.idle(greeting.sessionId);
    expect(after.requests[1].messages.map((m) => m.content)).toEqual(expect.arrayContaining(["I am Ada.", "Hello, Ada.", "Who am I?"]));

    await restarted.rename(greeting.sessionId, "Ada's chat");
    await restarted.remove(orphan.sessionId);
    const third = new ChatService({ provider: after, model: "scripted", store: process() });
    expect((await third.list("ada's")).map((s) => s.sessionId)).toEqual([greeting.sessionId]);
    await expect(third.get(orphan.sessionId)).rejects.toMatchObject({ code: "NOT_FOUND" });
    abort.abort();
  });
});
