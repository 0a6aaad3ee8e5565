import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ScriptedProvider } from "@/server/agent/llm/providers/scripted-provider";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { ChatService } from "../chat-service";
import type { ChatStore } from "./chat-store";
import { MAX_CHECKPOINT_RESUMES } from "./orphaned-turns";
import { PgChatStore } from "./pg-chat-store";
import { SqliteChatStore } from "./sqlite-chat-store";
import { eventKinds, fetchTool, HangingAfter, HangingProvider, untilFound } from "./testing/chat-fixtures";

/**
 * A chat turn cut by a crash after a finished iteration resumes from its checkpoint at the next start:
 * on SQLite (a restart: a new connection to the file) and on PostgreSQL (a new process's pools).
 */
interface Backend {
  /** The store of a process that starts now (the one before it is dead from here on). */
  restart(): ChatStore;
  /** Waits until what the running process wrote is committed (a crash loses nothing before it). */
  settle(): Promise<void>;
}

const FETCH_A = { text: "Fetching. ", toolCalls: [{ name: "fetch", args: { url: "https://a.example" } }] };

/** A turn whose first step (a fetch) finished and whose second model call streams when its process dies. */
async function cutAfterStepOne(b: Backend) {
  const { tool, fetched } = fetchTool();
  const first = new ChatService({ provider: new HangingAfter([FETCH_A]), model: "m", tools: [tool], store: b.restart() });
  const { sessionId, turnId } = (await first.send({ message: "read a" })) as { sessionId: string; turnId: string };
  await untilFound(async () => (await first.events(sessionId)).find((e) => e.type === "text_delta" && e.text.startsWith("reading")));
  await b.settle();
  return { tool, fetched, first, sessionId, turnId };
}

function resumeTests(backend: () => Backend): void {
  it("resumes a turn cut during its second model call: the tool does not run again, a notice says so, the turn completes", async () => {
    const b = backend();
    const { tool, fetched, first, sessionId, turnId } = await cutAfterStepOne(b);
    const before = await first.events(sessionId);

    const after = new ScriptedProvider([{ text: "The page says hello." }]);
    const restarted = new ChatService({ provider: after, model: "m", tools: [tool], store: b.restart() });
    await restarted.idle(sessionId);

    expect(fetched).toEqual(["https://a.example"]);
    expect(after.requests).toHaveLength(1);
    expect(after.requests[0].messages.filter((m) => m.role !== "system").map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(after.requests[0].messages.at(-1)).toMatchObject({ role: "tool", content: "the page at https://a.example" });
    const events = await restarted.events(sessionId);
    expect(events.slice(0, before.length)).toEqual(before); // what streamed before the crash is kept as it was
    expect(eventKinds(events)).toEqual(["user_message", "tool_call", "tool_result", "notice", "turn_completed"]);
    expect(events.find((e) => e.type === "notice")).toMatchObject({ turnId, command: "resume", isError: false, text: expect.stringMatching(/^resumed after a restart, from the end of step 1/) });
    expect(events.at(-1)).toMatchObject({ type: "turn_completed", turnId, stopReason: "completed", content: "The page says hello." });
    expect(await restarted.get(sessionId)).toMatchObject({ running: false, turns: 1 });

    // The conversation kept the whole turn: the next one reads the tool's result and the answer.
    await restarted.send({ sessionId, message: "and then?" });
    await restarted.idle(sessionId);
    expect(after.requests[1]?.messages.map((m) => m.content)).toEqual(expect.arrayContaining(["read a", "the page at https://a.example", "The page says hello.", "and then?"]));
  });

  it(`a turn that keeps dying is resumed ${MAX_CHECKPOINT_RESUMES} times, then ends as a turn without a checkpoint does`, async () => {
    const b = backend();
    const { tool, fetched, sessionId, turnId } = await cutAfterStepOne(b);
    for (let resume = 1; resume <= MAX_CHECKPOINT_RESUMES; resume++) {
      const again = new ChatService({ provider: new HangingProvider(), model: "m", tools: [tool], store: b.restart() });
      await untilFound(async () => (await again.events(sessionId)).filter((e) => e.type === "notice").length === resume || undefined);
      await untilFound(async () => ((await again.events(sessionId)).at(-1)?.type === "text_delta") || undefined);
      await b.settle();
    }
    const last = new ChatService({ provider: new ScriptedProvider([]), model: "m", tools: [tool], store: b.restart() });
    await last.idle(sessionId);
    const events = await last.events(sessionId);
    expect(events.filter((e) => e.type === "notice").map((e) => (e.type === "notice" ? e.text : ""))).toEqual([
      expect.stringMatching(/^resumed after a restart, from/),
      expect.stringMatching(/^resumed after a restart \(resume 2\), from/),
    ]);
    expect(events.at(-1)).toMatchObject({ type: "turn_failed", turnId, message: expect.stringMatching(/not resumed again/) });
    expect(await last.get(sessionId)).toMatchObject({ running: false });
    expect(fetched).toEqual(["https://a.example"]);
  });
}

describe("chat turns resume from their checkpoint on SQLite", () => {
  const temps: TempDatabase[] = [];
  afterEach(() => temps.splice(0).forEach((t) => t[Symbol.dispose]()));
  resumeTests(() => {
    const temp = new TempDatabase();
    temps.push(temp);
    let started = false;
    return {
      restart: () => new SqliteChatStore(started ? temp.reopen() : ((started = true), temp.db)),
      // The group commit runs at the latest the next macrotask.
      settle: () => new Promise((r) => setTimeout(r, 20)),
    };
  });
});

describe("chat turns resume from their checkpoint on PostgreSQL", () => {
  let database: PgTestDatabase;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });
  let current: PgChatStore | null = null;
  resumeTests(() => ({
    restart: () => (current = new PgChatStore(database.open().acks)),
    settle: () => current!.committed(),
  }));
});
