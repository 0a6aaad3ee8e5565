import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlmProvider } from "@/server/agent/llm/llm-provider";
import type { LLMStreamEvent } from "@/server/agent/llm/stream-events";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { ChatService } from "../chat-service";
import { PgChatStore } from "./pg-chat-store";

/** A model that streams a word, then finishes once the test opens its gate (a turn the test holds running). */
class GatedProvider extends LlmProvider {
  readonly name = "gated";
  private release!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));
  open(): this {
    this.release();
    return this;
  }
  async *stream(): AsyncGenerator<LLMStreamEvent> {
    yield { type: "text_delta", text: "working… " };
    await this.gate;
    yield { type: "finish", reason: "stop" };
  }
}

/**
 * Two web processes of a PostgreSQL cluster serving one chat: each keeps its own copy of the chat's row,
 * and a change made on one is never undone by the other writing its older copy.
 */
describe("a chat's row shared by two processes", () => {
  let database: PgTestDatabase;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });
  const process = (owner: string, provider: LlmProvider) =>
    new ChatService({ provider, model: "gated", store: new PgChatStore(database.open().acks), cluster: { owner } });
  const stored = (sessionId: string) => new PgChatStore(database.open().acks).session(sessionId);
  async function connected(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    return client;
  }

  it("a rename on B while A runs the turn outlives the turn's end on A; the turn is counted once and freed", async () => {
    const onA = new GatedProvider();
    const [a, b] = [process("a", onA), process("b", new GatedProvider().open())];
    const { sessionId, turnId } = await a.send({ message: "first words" });
    await b.rename(sessionId, "Named on B");
    expect(await stored(sessionId)).toMatchObject({ title: "Named on B", runningTurn: turnId, turnOwner: "a", turns: 1 });
    onA.open();
    await a.idle(sessionId);
    const row = await stored(sessionId);
    expect(row).toMatchObject({ title: "Named on B", turns: 1, runningTurn: null, awaitingApproval: null });
    expect(row?.turnOwner).toBeUndefined();
    expect(await a.get(sessionId)).toMatchObject({ title: "Named on B", turns: 1, running: false });
  });

  it("B's older copy of the chat (idle there) never frees the turn A runs nor uncounts it", async () => {
    const onA = new GatedProvider();
    const [a, b] = [process("a", onA), process("b", new GatedProvider().open())];
    const first = await b.send({ message: "on B" });
    await b.idle(first.sessionId);
    const { sessionId } = first;
    const { turnId } = await a.send({ sessionId, message: "on A" });
    expect(turnId).not.toBe(first.turnId);
    await b.rename(sessionId, "Named on B");
    expect(await stored(sessionId)).toMatchObject({ title: "Named on B", runningTurn: turnId, turnOwner: "a", turns: 2 });
    expect(await b.get(sessionId)).toMatchObject({ running: true, turns: 2 });
    onA.open();
    await a.idle(sessionId);
    expect(await stored(sessionId)).toMatchObject({ title: "Named on B", runningTurn: null, turns: 2 });
  });

  it("ending a dead process's turn writes no turn_failed when the chat moved on (that turn ended, another began) while it ended it", async () => {
    const b = process("b", new GatedProvider().open());
    const { sessionId } = await b.create({ title: "moved on" });
    const client = await connected();
    try {
      // The turn of a process the cluster holds dead.
      await client.query("UPDATE chat_sessions SET running_turn = 'orphan', running_owner = 'dead', turns = 1 WHERE session_id = $1", [sessionId]);
      // Meanwhile its owner ends it and another turn begins, in a commit not yet made: B reads the orphan
      // still running, and its end of the turn waits for the row.
      await client.query("BEGIN");
      await client.query("UPDATE chat_sessions SET running_turn = 'next', running_owner = 'live', turns = 2 WHERE session_id = $1", [sessionId]);
      const ending = b.endOrphanedTurn(sessionId, "orphan");
      const waiting = async () => (await client.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rows[0].n;
      await expect.poll(waiting, { timeout: 5_000 }).toBe(1);
      await client.query("COMMIT");
      expect(await ending).toBe(false);
    } finally {
      await client.end();
    }
    expect(await b.events(sessionId)).toEqual([]);
    expect(await stored(sessionId)).toMatchObject({ runningTurn: "next", turnOwner: "live", turns: 2 });
  });
});
