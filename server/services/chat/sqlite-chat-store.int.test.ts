import BetterSqlite3 from "better-sqlite3";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { openGraphDatabase, type Database } from "@/server/db/graph-database";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { ChatService } from "../chat-service";
import { SqliteTokenTotals } from "../extensions/token-totals-store";
import { SqliteChatStore } from "./sqlite-chat-store";
import { deployTool, eventKinds, HangingProvider, untilFound } from "./testing/chat-fixtures";
import { chatStoreTests } from "./testing/chat-store-suite";

const { tool: deploy, deployed } = deployTool();
const temps: TempDatabase[] = [];
afterEach(() => temps.splice(0).forEach((t) => t[Symbol.dispose]()));

describe("ChatStore on SQLite", () => {
  const temp = new TempDatabase();
  const readers: Database[] = [];
  afterAll(() => {
    for (const db of readers) db.close();
    temp[Symbol.dispose]();
  });
  chatStoreTests({
    store: () => new SqliteChatStore(temp.db),
    // Another connection to the file: it sees what was committed.
    reopened: () => new SqliteChatStore(readers[readers.push(openGraphDatabase(temp.file)) - 1]),
    transactional: true,
    keepsOwner: false,
    tokenTotals: () => new SqliteTokenTotals(temp.db),
  });
});

describe("durable chats on SQLite", () => {
  it("a restart keeps transcripts, and a waiting approval still resumes the turn at TOOL without asking the model again", async () => {
    const temp = new TempDatabase();
    temps.push(temp);
    const before = new ScriptedProvider([
      { text: "Hello, Ada." },
      { text: "Deploying. ", toolCalls: [{ name: "deploy", args: { service: "web" } }] },
    ]);
    const chat = new ChatService({ provider: before, model: "scripted", tools: [deploy], store: new SqliteChatStore(temp.db) });
    const greeting = await chat.send({ message: "I am Ada." });
    await chat.idle(greeting.sessionId);
    const waiting = await chat.send({ message: "deploy web" });
    const request = await untilFound(async () => (await chat.events(waiting.sessionId)).find((e) => e.type === "approval_requested"));
    await chat.idle(waiting.sessionId);
    const hanging = new ChatService({ provider: new HangingProvider(), model: "hanging", store: new SqliteChatStore(temp.db) });
    const orphan = await hanging.send({ message: "think hard" });
    await untilFound(async () => (await hanging.events(orphan.sessionId)).find((e) => e.type === "text_delta"));
    await new Promise((r) => setImmediate(r));

    // What a second connection sees is what was committed: every event the chats answered or streamed.
    const reader = new BetterSqlite3(temp.file, { readonly: true });
    const committed = reader.prepare("SELECT count(*) FROM chat_events").pluck().get();
    reader.close();
    const transcript = await chat.events(greeting.sessionId);
    const waitingTranscript = await chat.events(waiting.sessionId);
    expect(committed).toBe(transcript.length + waitingTranscript.length + (await hanging.events(orphan.sessionId)).length);

    temp.reopen(); // the process restarts: new connection, new service, a model that knows only the rest of the turn
    const after = new ScriptedProvider([{ text: "All set." }, { text: "You are Ada." }]);
    const restarted = new ChatService({ provider: after, model: "scripted", tools: [deploy], store: new SqliteChatStore(temp.db) });
    expect((await restarted.events(greeting.sessionId))).toEqual(transcript);
    expect((await restarted.events(waiting.sessionId))).toEqual(waitingTranscript);
    expect((await restarted.get(waiting.sessionId))).toMatchObject({ running: true, awaitingApproval: true, turns: 1 });
    expect((await restarted.get(orphan.sessionId))).toMatchObject({ running: false });
    expect((await restarted.events(orphan.sessionId)).at(-1)).toMatchObject({ type: "turn_failed", turnId: orphan.turnId, message: expect.stringMatching(/server stopped/) });

    if (request.type !== "approval_requested") throw new Error("no request");
    await restarted.decide({ sessionId: waiting.sessionId, transactionId: request.transactionId, approved: true, reason: "go" });
    await restarted.idle(waiting.sessionId);
    expect(deployed).toEqual(["web"]);
    expect(after.requests).toHaveLength(1); // the model is asked only for what follows the tool
    expect(after.requests[0].messages.at(-1)).toMatchObject({ role: "tool", content: "deployed web" });
    expect(eventKinds((await restarted.events(waiting.sessionId))).slice(-3)).toEqual(["approval_decided", "tool_result", "turn_completed"]);
    expect((await restarted.events(waiting.sessionId)).at(-1)).toMatchObject({ turnId: waiting.turnId, stopReason: "completed", content: "All set." });

    // The conversation (memory) survived too: the next turn of the first chat sees its first exchange.
    await restarted.send({ sessionId: greeting.sessionId, message: "Who am I?" });
    await restarted.idle(greeting.sessionId);
    expect(after.requests[1].messages.map((m) => m.content)).toEqual(expect.arrayContaining(["I am Ada.", "Hello, Ada.", "Who am I?"]));
    expect((await restarted.list()).map((s) => s.sessionId).sort()).toEqual([greeting.sessionId, waiting.sessionId, orphan.sessionId].sort());
  });

  it("messages queued behind a turn waiting for approval still run after a restart, in order, once the turn ends", async () => {
    const temp = new TempDatabase();
    temps.push(temp);
    const before = new ScriptedProvider([{ text: "Deploying. ", toolCalls: [{ name: "deploy", args: { service: "api" } }] }]);
    const chat = new ChatService({ provider: before, model: "scripted", tools: [deploy], store: new SqliteChatStore(temp.db) });
    const waiting = await chat.send({ message: "deploy api" });
    const { sessionId } = waiting;
    await untilFound(async () => (await chat.events(sessionId)).find((e) => e.type === "approval_requested"));
    await chat.idle(sessionId);
    // Acknowledged as queued (a STEER, while the turn waits, is queued too).
    expect(await chat.send({ sessionId, message: "then check the logs" })).toMatchObject({ handled: "queued" });
    expect(await chat.send({ sessionId, message: "and report", busyInput: "STEER" })).toMatchObject({ handled: "queued" });

    temp.reopen(); // the process restarts
    const after = new ScriptedProvider((request) => ({ text: `done: ${request.messages.filter((m) => m.role === "user").at(-1)?.content}` }));
    const restarted = new ChatService({ provider: after, model: "scripted", tools: [deploy], store: new SqliteChatStore(temp.db) });
    await restarted.decidePending({ sessionId, approved: true });
    for (let i = 0; i < 200 && (await restarted.get(sessionId)).turns < 3; i++) await new Promise((r) => setTimeout(r, 10));
    await restarted.idle(sessionId);

    const events = await restarted.events(sessionId);
    expect(events.filter((e) => e.type === "queued_started").map((e) => (e.type === "queued_started" ? e.text : ""))).toEqual(["then check the logs", "and report"]);
    expect(events.filter((e) => e.type === "turn_completed").map((e) => (e.type === "turn_completed" ? e.content : ""))).toEqual([
      "done: deploy api",
      "done: then check the logs",
      "done: and report",
    ]);
    expect(await restarted.get(sessionId)).toMatchObject({ running: false, queued: 0, turns: 3 });
  });

  it("messages queued behind a turn that was streaming when the server stopped run after the restart, in order, each once", async () => {
    const temp = new TempDatabase();
    temps.push(temp);
    const chat = new ChatService({ provider: new HangingProvider(), model: "hanging", store: new SqliteChatStore(temp.db) });
    const streaming = await chat.send({ message: "think hard" });
    const { sessionId } = streaming;
    await untilFound(async () => (await chat.events(sessionId)).find((e) => e.type === "text_delta"));
    // Acknowledged (committed) while the turn streams: two queued, one steering the turn that never asks the model again.
    expect(await chat.send({ sessionId, message: "first" })).toMatchObject({ handled: "queued" });
    expect(await chat.send({ sessionId, message: "second" })).toMatchObject({ handled: "queued" });
    expect(await chat.send({ sessionId, message: "and be brief", busyInput: "STEER" })).toMatchObject({ handled: "steered" });
    const reader = new BetterSqlite3(temp.file, { readonly: true });
    expect(reader.prepare("SELECT text, mode, state FROM chat_inputs ORDER BY position").all()).toEqual([
      { text: "first", mode: "QUEUE", state: "waiting" },
      { text: "second", mode: "QUEUE", state: "waiting" },
      { text: "and be brief", mode: "STEER", state: "waiting" },
    ]);
    reader.close();

    temp.reopen(); // the process dies with the turn streaming, and starts again
    const after = new ScriptedProvider((request) => ({ text: `done: ${request.messages.filter((m) => m.role === "user").at(-1)?.content}` }));
    const restarted = new ChatService({ provider: after, model: "scripted", store: new SqliteChatStore(temp.db) });
    // A message sent the moment the server is back waits behind those acknowledged before.
    expect(await restarted.send({ sessionId, message: "newest" })).toMatchObject({ handled: "queued" });
    for (let i = 0; i < 300 && (await restarted.get(sessionId)).turns < 5; i++) await new Promise((r) => setTimeout(r, 10));
    await restarted.idle(sessionId);

    const events = await restarted.events(sessionId);
    expect(events.find((e) => e.type === "turn_failed")).toMatchObject({ turnId: streaming.turnId, message: expect.stringMatching(/server stopped/) });
    expect(events.filter((e) => e.type === "queued_started").map((e) => (e.type === "queued_started" ? e.text : ""))).toEqual(["first", "second", "and be brief", "newest"]);
    expect(events.filter((e) => e.type === "turn_completed").map((e) => (e.type === "turn_completed" ? e.content : ""))).toEqual([
      "done: first",
      "done: second",
      "done: and be brief",
      "done: newest",
    ]);
    expect(after.requests).toHaveLength(4);
    expect(await restarted.get(sessionId)).toMatchObject({ running: false, queued: 0, turns: 5 });
    expect(temp.db.prepare("SELECT count(*) AS n FROM chat_inputs WHERE state = 'started'").get()).toEqual({ n: 4 });

    // A second restart runs nothing again.
    temp.reopen();
    const again = new ChatService({ provider: after, model: "scripted", store: new SqliteChatStore(temp.db) });
    await new Promise((r) => setTimeout(r, 100));
    await again.idle(sessionId);
    expect(after.requests).toHaveLength(4);
    expect(await again.get(sessionId)).toMatchObject({ running: false, turns: 5 });
  });

  it("a chat opened without a title (REST, /new) is titled by its first message, as one opened by its first message is; a named one keeps its name", async () => {
    const temp = new TempDatabase();
    temps.push(temp);
    const provider = new ScriptedProvider((request) => ({ text: `re: ${request.messages.at(-1)?.content}` }));
    const chat = new ChatService({ provider, model: "scripted", store: new SqliteChatStore(temp.db) });
    const created = await chat.create();
    expect(created.title).toBe("New chat");
    await chat.send({ sessionId: created.sessionId, message: "  Plan the release of version two, with notes for every change that went in since March  " });
    await chat.idle(created.sessionId);
    await chat.send({ sessionId: created.sessionId, message: "and the date" });
    await chat.idle(created.sessionId);
    const direct = await chat.send({ message: "Plan the release of version two, with notes for every change that went in since March" });
    await chat.idle(direct.sessionId);
    const named = await chat.create({ title: "Release" });
    await chat.send({ sessionId: named.sessionId, message: "go" });
    await chat.idle(named.sessionId);

    const restarted = new ChatService({ provider, model: "scripted", store: new SqliteChatStore(temp.reopen()) });
    const titled = (await restarted.get(created.sessionId)).title;
    expect(titled).toBe("Plan the release of version two, with notes for every chang…");
    expect((await restarted.get(direct.sessionId)).title).toBe(titled);
    expect((await restarted.get(named.sessionId)).title).toBe("Release");
  });

  it("rename, search and delete are stored", async () => {
    const temp = new TempDatabase();
    temps.push(temp);
    const chat = new ChatService({ provider: new ScriptedProvider(() => ({ text: "ok" })), model: "s", store: new SqliteChatStore(temp.db) });
    const a = await chat.send({ message: "100% of the budget_2026" });
    const b = await chat.send({ message: "something else" });
    await chat.idle(a.sessionId);
    await chat.idle(b.sessionId);
    await chat.rename(b.sessionId, "Renamed");
    await chat.remove(a.sessionId);
    temp.reopen();
    const restarted = new ChatService({ provider: new ScriptedProvider(() => ({ text: "ok" })), model: "s", store: new SqliteChatStore(temp.db) });
    expect((await restarted.list()).map((s) => [s.sessionId, s.title])).toEqual([[b.sessionId, "Renamed"]]);
    expect((await restarted.list("renam"))).toHaveLength(1);
    expect((await restarted.list("ELSE"))).toHaveLength(1);
    expect((await restarted.list("%"))).toHaveLength(0); // LIKE wildcards are literal
    const rows = temp.db.prepare("SELECT count(*) FROM chat_events WHERE session_id = ?").pluck().get(a.sessionId);
    expect(rows).toBe(0);
  });
});
