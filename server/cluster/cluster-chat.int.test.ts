import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { LlmProvider, type LlmStreamOptions } from "@/server/agent/llm/llm-provider";
import type { LlmRequest } from "@/server/agent/llm/messages";
import type { LLMStreamEvent } from "@/server/agent/llm/stream-events";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { parseEnv } from "@/server/env";
import { startAppServices, type AppServices } from "@/server/services/app-services";
import { chatEventStream, type ChatEvent } from "@/server/services/chat-service";
import { createClusterAppServices } from "./cluster-app-services";

/**
 * A model that streams `words` text deltas, `delayMs` apart (honouring its signal), then finishes; it
 * records the requests it got (the system prompt shows which definition the turn used).
 */
class PacedProvider extends LlmProvider {
  readonly name = "paced";
  readonly requests: LlmRequest[] = [];
  constructor(private readonly pace: { words: number; delayMs: number }) {
    super();
  }
  async *stream(request: LlmRequest, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
    this.requests.push(structuredClone(request));
    for (let i = 0; i < this.pace.words; i++) {
      if (this.pace.delayMs > 0) await new Promise((r) => setTimeout(r, this.pace.delayMs));
      if (options.signal.aborted) throw new DOMException("aborted", "AbortError");
      yield { type: "text_delta", text: `w${i} ` };
    }
    yield { type: "finish", reason: "stop" };
  }
}

const systemPrompt = (r: LlmRequest | undefined) => String(r?.messages[0]?.content ?? "");

/**
 * Two web processes (MODEX_ROLE=web) of one PostgreSQL database in one test: each its own app services,
 * connections, LISTEN feeds and heartbeat, as two `npm run start` processes have.
 */
describe("chats across the web processes of a PostgreSQL cluster", () => {
  const cleanup: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  async function database(): Promise<PgTestDatabase> {
    const db = await PgTestDatabase.create();
    cleanup.push(() => db[Symbol.asyncDispose]());
    return db;
  }

  async function webProcess(url: string, provider: LlmProvider, leaseMs = 600): Promise<AppServices> {
    const dataDir = mkdtempSync(path.join(tmpdir(), "modex-web-"));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = parseEnv({ DATABASE_URL: url, MODEX_ROLE: "web", MODEX_DATA_DIR: dataDir, MODEX_TOKEN: "t".repeat(40), MODEX_LEASE_MS: String(leaseMs) });
    const services = await createClusterAppServices({ url, env, agents: { chatProvider: provider }, reapEveryMs: 100 });
    cleanup.push(() => services.close?.());
    await startAppServices(services, { specsDir: env.specsDir, recover: false });
    return services;
  }

  /** Collects a chat's stream on `services` (replay, then live) until the test ends. */
  function view(services: AppServices, sessionId: string): ChatEvent[] {
    const seen: ChatEvent[] = [];
    const abort = new AbortController();
    const done = (async () => {
      for await (const e of chatEventStream(services.chat, sessionId, 0, abort.signal)) seen.push(e);
    })();
    cleanup.push(() => (abort.abort(), done));
    return seen;
  }

  async function sql<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<R>(text, values)).rows;
    } finally {
      await client.end();
    }
  }

  it("a viewer on web process B sees every event of a turn run on A, in order, once, across a cut LISTEN connection", async () => {
    const db = await database();
    const a = await webProcess(db.url, new PacedProvider({ words: 60, delayMs: 15 }));
    const b = await webProcess(db.url, new PacedProvider({ words: 1, delayMs: 0 }));
    const { sessionId } = await a.chat.create({ title: "across" });
    const seen = view(b, sessionId);
    const { turnId } = await a.chat.send({ sessionId, message: "stream" });
    await expect.poll(() => seen.filter((e) => e.type === "text_delta").length, { timeout: 10_000 }).toBeGreaterThan(5);
    // A message sent to B while A runs the turn waits behind it (QUEUE), and B runs it once A's turn ended.
    const queued = await b.chat.send({ sessionId, message: "again" });
    expect(queued).toMatchObject({ handled: "queued", turnId });
    // Cut every chat feed's LISTEN connection mid-turn: what commits meanwhile is read on reconnect.
    const cut = await sql<{ pid: number }>(db.url, "SELECT pg_terminate_backend(pid), pid FROM pg_stat_activity WHERE application_name = 'modex-chat-events' AND datname = current_database()");
    expect(cut).toHaveLength(2);
    await expect.poll(() => seen.filter((e) => e.type === "turn_completed").length, { timeout: 15_000 }).toBe(2);
    const stored = await a.chat.events(sessionId);
    expect(seen.map((e) => [e.seq, e.type, e.turnId])).toEqual(stored.map((e) => [e.seq, e.type, e.turnId]));
    expect(seen.filter((e) => e.turnId === turnId && e.type === "text_delta").map((e) => (e as { text: string }).text).join("")).toBe(
      Array.from({ length: 60 }, (_, i) => `w${i} `).join(""),
    );
    // The feeds are back (a new connection each).
    await expect.poll(async () => (await sql(db.url, "SELECT pid FROM pg_stat_activity WHERE application_name = 'modex-chat-events' AND datname = current_database()")).length).toBe(2);
    // The queued message ran on B as a turn of its own, after A's; A's viewers see it live too.
    const second = seen.find((e) => e.type === "queued_started");
    expect(second).toMatchObject({ text: "again" });
    expect(second!.turnId).not.toBe(turnId);
    expect(seen.findIndex((e) => e.type === "queued_started")).toBeGreaterThan(seen.findIndex((e) => e.turnId === turnId && e.type === "turn_completed"));
    const seenOnA = view(a, sessionId);
    await b.chat.send({ sessionId, message: "third" });
    await expect.poll(() => seenOnA.filter((e) => e.type === "turn_completed").length, { timeout: 10_000 }).toBe(3);
    expect(seenOnA.map((e) => e.seq)).toEqual((await b.chat.events(sessionId)).map((e) => e.seq));
  }, 60_000);

  it("an agent definition saved on A is used by B's next chat turn, and an extension toggled on A is toggled on B, without a restart", async () => {
    const db = await database();
    const onA = new PacedProvider({ words: 1, delayMs: 0 });
    const onB = new PacedProvider({ words: 1, delayMs: 0 });
    const a = await webProcess(db.url, onA);
    const b = await webProcess(db.url, onB);
    const first = await b.chat.send({ message: "hi", agent: "reviewer" });
    await b.chat.idle(first.sessionId);
    expect(systemPrompt(onB.requests.at(-1))).toContain("You review code changes.");
    const yaml = (await a.agents.get("reviewer")).yaml.replace("You review code changes.", "You review prose.");
    expect((await a.agents.save(yaml, "reviewer")).created).toBe(true);
    await expect.poll(() => b.agents.find("reviewer")?.definition.instructions, { timeout: 5_000 }).toContain("You review prose.");
    // The chat B had loaded takes the new definition on its next turn; so does a new one.
    await b.chat.send({ sessionId: first.sessionId, message: "again" });
    await b.chat.idle(first.sessionId);
    expect(systemPrompt(onB.requests.at(-1))).toContain("You review prose.");
    const fresh = await b.chat.send({ message: "new", agent: "reviewer" });
    await b.chat.idle(fresh.sessionId);
    expect(systemPrompt(onB.requests.at(-1))).toContain("You review prose.");

    const [extension] = a.extensions.report().extensions;
    expect(extension.enabled).toBe(true);
    await a.extensions.setEnabled(extension.name, false);
    await expect.poll(() => b.extensions.report().extensions.find((e) => e.name === extension.name)?.enabled, { timeout: 5_000 }).toBe(false);
    await a.extensions.setEnabled(extension.name, true);
    await expect.poll(() => b.extensions.report().extensions.find((e) => e.name === extension.name)?.enabled, { timeout: 5_000 }).toBe(true);
  }, 60_000);

  it("a turn whose web process's heartbeat expired is ended by a live process as a restart ends it; a live owner's turn is left alone", async () => {
    const db = await database();
    // A's lease is long: it beats once a minute, so once its row is expired by hand it stays dead for the cluster.
    const a = await webProcess(db.url, new PacedProvider({ words: 400, delayMs: 10 }), 180_000);
    const b = await webProcess(db.url, new PacedProvider({ words: 1, delayMs: 0 }));
    const { sessionId, turnId } = await a.chat.send({ message: "long" });
    const seen = view(b, sessionId);
    const owner = async () => (await sql<{ running_turn: string | null; running_owner: string | null }>(db.url, "SELECT running_turn, running_owner FROM chat_sessions WHERE session_id = $1", [sessionId]))[0];
    await expect.poll(owner).toEqual({ running_turn: turnId, running_owner: a.executor.id });
    // A lives (its heartbeat is fresh): B's reaper, passing every 100 ms, leaves its turn alone.
    await new Promise((r) => setTimeout(r, 500));
    expect(await owner()).toEqual({ running_turn: turnId, running_owner: a.executor.id });
    expect((await b.chat.get(sessionId)).running).toBe(true);
    // A dies for the cluster: its heartbeat expires.
    await sql(db.url, "UPDATE cluster_processes SET expires_at = now() - interval '1 second' WHERE process_id = $1", [a.executor.id]);
    await expect.poll(() => seen.find((e) => e.type === "turn_failed"), { timeout: 5_000 }).toMatchObject({ turnId, message: expect.stringContaining("the server stopped while this turn ran") });
    expect(await owner()).toEqual({ running_turn: null, running_owner: null });
    expect((await b.chat.get(sessionId)).running).toBe(false);
    expect((await b.chat.events(sessionId)).filter((e) => e.type === "turn_failed")).toHaveLength(1);
    // (A was only frozen here: stop its turn, as a dead process would not go on.)
    await a.chat.cancel(sessionId);
    await a.chat.idle(sessionId);
    // The chat is free: B runs its next turn.
    const retry = await b.chat.send({ sessionId, message: "retry" });
    expect(retry.handled).toBe("started");
    await expect.poll(() => seen.some((e) => e.turnId === retry.turnId && e.type === "turn_completed"), { timeout: 10_000 }).toBe(true);
  }, 60_000);
});
