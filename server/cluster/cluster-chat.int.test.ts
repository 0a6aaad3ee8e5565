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

/** First call: waits `firstMs`, then asks for a todo_write (so the turn calls the model again); later calls stream as PacedProvider. */
class ToolFirstProvider extends PacedProvider {
  constructor(private readonly firstMs: number) {
    super({ words: 2, delayMs: 0 });
  }
  async *stream(request: LlmRequest, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
    if (this.requests.length > 0) return yield* super.stream(request, options);
    this.requests.push(structuredClone(request));
    await new Promise((r) => setTimeout(r, this.firstMs));
    yield { type: "tool_call_complete", call: { id: "c1", name: "todo_write", arguments: JSON.stringify({ todos: [{ content: "x", status: "in_progress" }] }) } };
    yield { type: "finish", reason: "tool_calls" };
  }
}

/** First call: a todo_write; the next one never answers (its process is dead from there). */
class ToolThenHangProvider extends ToolFirstProvider {
  constructor() {
    super(0);
  }
  async *stream(request: LlmRequest, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
    if (this.requests.length === 0) return yield* super.stream(request, options);
    this.requests.push(structuredClone(request));
    await new Promise(() => {});
    yield { type: "finish", reason: "stop" };
  }
}

/** The user's messages of a request (the agent's own reminders aside). */
const userTexts = (r: LlmRequest | undefined) =>
  (r?.messages ?? []).filter((m) => m.role === "user").map((m) => String(m.content)).filter((t) => !t.startsWith("<system-reminder>"));

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

  async function webProcess(url: string, provider: LlmProvider, leaseMs = 600, options: { relayTimeoutMs?: number; reapEveryMs?: number } = {}): Promise<AppServices> {
    const dataDir = mkdtempSync(path.join(tmpdir(), "modex-web-"));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = parseEnv({ DATABASE_URL: url, MODEX_ROLE: "web", MODEX_DATA_DIR: dataDir, MODEX_TOKEN: "t".repeat(40), MODEX_LEASE_MS: String(leaseMs) });
    const services = await createClusterAppServices({ url, env, agents: { chatProvider: provider }, reapEveryMs: options.reapEveryMs ?? 100, relayTimeoutMs: options.relayTimeoutMs });
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

  it("what waits behind a turn is counted from the store: A, running the turn, and B, holding the messages sent to it, say the same queued", async () => {
    const db = await database();
    const a = await webProcess(db.url, new PacedProvider({ words: 200, delayMs: 20 }));
    const b = await webProcess(db.url, new PacedProvider({ words: 1, delayMs: 0 }));
    const { sessionId } = await a.chat.create({ title: "counted" });
    const seen = view(a, sessionId);
    const { turnId } = await a.chat.send({ sessionId, message: "long" });
    await expect.poll(() => seen.some((e) => e.type === "text_delta"), { timeout: 10_000 }).toBe(true);
    expect(await b.chat.send({ sessionId, message: "one" })).toMatchObject({ handled: "queued", turnId });
    expect(await b.chat.send({ sessionId, message: "two" })).toMatchObject({ handled: "queued", turnId });
    for (const web of [a, b]) {
      expect(await web.chat.get(sessionId)).toMatchObject({ running: true, queued: 2 });
      expect((await web.chat.list()).find((c) => c.sessionId === sessionId)).toMatchObject({ queued: 2 });
    }
    // Both ran, one turn each, after A's: nothing waits any more, on either process.
    await expect.poll(() => seen.filter((e) => e.type === "turn_completed").length, { timeout: 20_000 }).toBe(3);
    await expect.poll(async () => (await a.chat.get(sessionId)).running, { timeout: 5_000 }).toBe(false);
    for (const web of [a, b]) expect(await web.chat.get(sessionId)).toMatchObject({ running: false, queued: 0, turns: 3 });
  }, 60_000);

  it("two messages sent at the same moment to A and B for one idle chat run one turn at a time: one starts, the other waits for its end (QUEUE) and runs next", async () => {
    const db = await database();
    const onA = new PacedProvider({ words: 8, delayMs: 10 });
    const onB = new PacedProvider({ words: 8, delayMs: 10 });
    const a = await webProcess(db.url, onA);
    const b = await webProcess(db.url, onB);
    for (let round = 0; round < 3; round++) {
      const { sessionId } = await a.chat.create({ title: `race ${round}` });
      await b.chat.get(sessionId);
      const seen = view(a, sessionId);
      const [onAnswer, onBAnswer] = await Promise.all([a.chat.send({ sessionId, message: "from A" }), b.chat.send({ sessionId, message: "from B" })]);
      // One process claimed the idle chat; the other took its message as sent to a busy chat.
      expect([onAnswer.handled, onBAnswer.handled].sort()).toEqual(["queued", "started"]);
      const [first, second] = onAnswer.handled === "started" ? [onAnswer, onBAnswer] : [onBAnswer, onAnswer];
      expect(second.turnId).toBe(first.turnId);
      await expect.poll(() => seen.filter((e) => e.type === "turn_completed").length, { timeout: 10_000 }).toBe(2);
      await new Promise((r) => setTimeout(r, 100)); // nothing more comes
      const stored = await b.chat.events(sessionId);
      expect(seen.map((e) => e.seq)).toEqual(stored.map((e) => e.seq));
      // The events of the two turns never interleave: each turn's events are one run of the transcript.
      const turns = stored.map((e) => e.turnId).filter((id, i, all) => i === 0 || all[i - 1] !== id);
      expect(turns).toHaveLength(2);
      expect(turns[0]).toBe(first.turnId);
      expect(stored.filter((e) => e.type === "user_message").map((e) => (e as { text: string }).text)).toEqual(
        first === onAnswer ? ["from A", "from B"] : ["from B", "from A"],
      );
      expect(stored.filter((e) => e.type === "turn_completed")).toHaveLength(2);
      expect(stored.some((e) => e.type === "turn_failed")).toBe(false);
      expect(await b.chat.get(sessionId)).toMatchObject({ running: false, turns: 2 });
    }
    // Each message reached a model once; the second turn's model saw the first exchange.
    const requests = [...onA.requests, ...onB.requests];
    expect(requests).toHaveLength(6);
    expect(requests.filter((r) => userTexts(r).length === 2)).toHaveLength(3);
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

    const [extension] = (await a.extensions.report()).extensions;
    expect(extension.enabled).toBe(true);
    await a.extensions.setEnabled(extension.name, false);
    await expect.poll(async () => (await b.extensions.report()).extensions.find((e) => e.name === extension.name)?.enabled, { timeout: 5_000 }).toBe(false);
    await a.extensions.setEnabled(extension.name, true);
    await expect.poll(async () => (await b.extensions.report()).extensions.find((e) => e.name === extension.name)?.enabled, { timeout: 5_000 }).toBe(true);
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

  it("a turn whose web process died after a finished iteration is resumed from its checkpoint by the live process that claims it: its tool does not run again", async () => {
    const db = await database();
    const dead = new ToolThenHangProvider();
    const a = await webProcess(db.url, dead, 180_000);
    const live = new PacedProvider({ words: 2, delayMs: 0 });
    const b = await webProcess(db.url, live);
    const { sessionId, turnId } = await a.chat.send({ message: "plan it" });
    const seen = view(b, sessionId);
    // Iteration 1's tool finished and its checkpoint committed before the second model call (which hangs).
    await expect.poll(() => dead.requests.length, { timeout: 10_000 }).toBe(2);
    await expect.poll(async () => sql(db.url, "SELECT count(*)::int AS n FROM agent_turn_snapshots WHERE turn_id = $1", [turnId])).toEqual([{ n: 1 }]);
    // A dies for the cluster: B's reaper claims the turn and, as its owner now, resumes it.
    await sql(db.url, "UPDATE cluster_processes SET expires_at = now() - interval '1 second' WHERE process_id = $1", [a.executor.id]);
    await expect.poll(() => seen.find((e) => e.type === "turn_completed"), { timeout: 10_000 }).toMatchObject({ turnId, stopReason: "completed", content: "w0 w1 " });
    const notices = seen.filter((e) => e.type === "notice");
    expect(notices).toEqual([expect.objectContaining({ turnId, command: "resume" })]);
    expect(seen.some((e) => e.type === "turn_failed")).toBe(false);
    expect(seen.filter((e) => e.type === "tool_result")).toHaveLength(1);
    // B's first model call went on from the checkpoint: the todo_write call and its result, not run again
    // (the open todo item's reminder may ask the model once more after it).
    expect(live.requests[0].messages.at(-1)).toMatchObject({ role: "tool", name: "todo_write" });
    await expect.poll(async () => (await sql(db.url, "SELECT running_turn FROM chat_sessions WHERE session_id = $1", [sessionId]))[0]).toEqual({ running_turn: null });
    expect(await sql(db.url, "SELECT count(*)::int AS n FROM agent_turn_snapshots WHERE turn_id = $1", [turnId])).toEqual([{ n: 0 }]);
  }, 60_000);

  it("a message queued behind a turn whose web process died is not lost: the live process that ends the turn runs it, once", async () => {
    const db = await database();
    const a = await webProcess(db.url, new PacedProvider({ words: 400, delayMs: 10 }), 180_000);
    const b = await webProcess(db.url, new PacedProvider({ words: 1, delayMs: 0 }));
    const { sessionId, turnId } = await a.chat.send({ message: "long" });
    const seen = view(b, sessionId);
    await expect.poll(() => seen.filter((e) => e.type === "text_delta").length, { timeout: 10_000 }).toBeGreaterThan(0);
    // Acknowledged as queued by A, the process running the turn (its memory holds it, its row is committed).
    expect(await a.chat.send({ sessionId, message: "after the crash" })).toMatchObject({ handled: "queued", turnId });
    expect(await sql(db.url, "SELECT text, state FROM chat_inputs WHERE session_id = $1", [sessionId])).toEqual([{ text: "after the crash", state: "waiting" }]);
    // A dies for the cluster: B's reaper ends A's turn, then runs what waited behind it.
    await sql(db.url, "UPDATE cluster_processes SET expires_at = now() - interval '1 second' WHERE process_id = $1", [a.executor.id]);
    await expect.poll(() => seen.find((e) => e.type === "queued_started"), { timeout: 10_000 }).toMatchObject({ text: "after the crash" });
    const queuedTurn = seen.find((e) => e.type === "queued_started")!.turnId;
    await expect.poll(() => seen.some((e) => e.turnId === queuedTurn && e.type === "turn_completed"), { timeout: 10_000 }).toBe(true);
    expect(seen.find((e) => e.type === "turn_failed")).toMatchObject({ turnId, message: expect.stringContaining("the server stopped") });
    // A, frozen rather than dead here, stops its turn and finds the message started elsewhere: it runs once.
    await a.chat.cancel(sessionId);
    await a.chat.idle(sessionId);
    await new Promise((r) => setTimeout(r, 300));
    const stored = await b.chat.events(sessionId);
    expect(stored.filter((e) => e.type === "user_message").map((e) => (e as { text: string }).text)).toEqual(["long", "after the crash"]);
    expect(await sql(db.url, "SELECT state, turn_id FROM chat_inputs WHERE session_id = $1", [sessionId])).toEqual([{ state: "started", turn_id: queuedTurn }]);
    expect(await b.chat.get(sessionId)).toMatchObject({ running: false, turns: 2 });
  }, 60_000);

  it("messages queued on a web process that then closes still run, in order, when the turn they wait for (on another process) ends", async () => {
    const db = await database();
    const onA = new PacedProvider({ words: 60, delayMs: 10 });
    const a = await webProcess(db.url, onA);
    const b = await webProcess(db.url, new PacedProvider({ words: 1, delayMs: 0 }));
    const { sessionId, turnId } = await a.chat.send({ message: "long" });
    const seen = view(a, sessionId);
    await expect.poll(() => seen.filter((e) => e.type === "text_delta").length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await b.chat.send({ sessionId, message: "one" })).toMatchObject({ handled: "queued", turnId });
    expect(await b.chat.send({ sessionId, message: "two" })).toMatchObject({ handled: "queued", turnId });
    // B, which holds them, goes away before A's turn ends: A (its sweep, once the chat is idle for a lease) runs them.
    await b.close?.();
    await expect.poll(() => seen.filter((e) => e.type === "turn_completed").length, { timeout: 15_000 }).toBe(3);
    const stored = await a.chat.events(sessionId);
    expect(stored.filter((e) => e.type === "queued_started").map((e) => (e as { text: string }).text)).toEqual(["one", "two"]);
    expect(stored.filter((e) => e.type === "turn_completed").map((e) => e.turnId)[0]).toBe(turnId);
    expect(userTexts(onA.requests.at(-1))).toEqual(["long", "one", "two"]);
    expect(stored.some((e) => e.type === "turn_failed")).toBe(false);
  }, 60_000);

  it("stop and /stop sent to web process B end the turn A runs, as a stop on A does (cancelled, what streamed kept, events on both)", async () => {
    const db = await database();
    const onA = new PacedProvider({ words: 400, delayMs: 10 });
    const a = await webProcess(db.url, onA);
    const b = await webProcess(db.url, new PacedProvider({ words: 1, delayMs: 0 }));
    const { sessionId, turnId } = await a.chat.send({ message: "long" });
    const seenOnA = view(a, sessionId);
    const seenOnB = view(b, sessionId);
    await expect.poll(() => seenOnB.filter((e) => e.type === "text_delta").length, { timeout: 10_000 }).toBeGreaterThan(3);
    expect(await b.chat.cancel(sessionId)).toEqual({ cancelled: true });
    for (const seen of [seenOnA, seenOnB]) {
      await expect.poll(() => seen.find((e) => e.turnId === turnId && e.type === "turn_completed"), { timeout: 5_000 }).toMatchObject({ stopReason: "cancelled" });
    }
    const ended = seenOnB.find((e) => e.turnId === turnId && e.type === "turn_completed") as { content: string };
    expect(ended.content.length).toBeGreaterThan(0);
    expect(ended.content).not.toContain("w399");
    await expect.poll(async () => (await b.chat.get(sessionId)).running).toBe(false);
    // /stop typed on B for A's next turn: answered as on A, and the turn ends cancelled.
    const next = await a.chat.send({ sessionId, message: "again" });
    await expect.poll(() => seenOnB.filter((e) => e.turnId === next.turnId && e.type === "text_delta").length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await b.chat.send({ sessionId, message: "/stop" })).toMatchObject({ handled: "command", command: "/stop", ok: true, message: "stopped the running turn" });
    await expect.poll(() => seenOnA.find((e) => e.turnId === next.turnId && e.type === "turn_completed"), { timeout: 5_000 }).toMatchObject({ stopReason: "cancelled" });
    // Nothing runs now: B says so, truthfully.
    await expect.poll(async () => (await b.chat.get(sessionId)).running).toBe(false);
    expect(await b.chat.cancel(sessionId)).toEqual({ cancelled: false });
    expect(onA.requests).toHaveLength(2);
  }, 60_000);

  it("stop sent to B while the relay's LISTEN connections (A's and B's) reconnect is asked again and reaches A's turn: cancelled, not a 503", async () => {
    const db = await database();
    const a = await webProcess(db.url, new PacedProvider({ words: 400, delayMs: 10 }));
    const b = await webProcess(db.url, new PacedProvider({ words: 1, delayMs: 0 }));
    const { sessionId, turnId } = await a.chat.send({ message: "long" });
    const seen = view(b, sessionId);
    await expect.poll(() => seen.filter((e) => e.type === "text_delta").length, { timeout: 10_000 }).toBeGreaterThan(0);
    const listeners = "SELECT pid FROM pg_stat_activity WHERE application_name = 'modex-chat-turns' AND datname = current_database()";
    const before = (await sql<{ pid: number }>(db.url, listeners)).map((r) => r.pid);
    expect(before).toHaveLength(2);
    await sql(db.url, "SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", [before]);
    const startedAt = Date.now();
    expect(await b.chat.cancel(sessionId)).toEqual({ cancelled: true });
    expect(Date.now() - startedAt).toBeLessThan(3_000);
    await expect.poll(() => seen.find((e) => e.turnId === turnId && e.type === "turn_completed"), { timeout: 5_000 }).toMatchObject({ stopReason: "cancelled" });
    // Both processes listen again, on new connections.
    const after = (await sql<{ pid: number }>(db.url, listeners)).map((r) => r.pid);
    expect(after).toHaveLength(2);
    expect(after.some((pid) => before.includes(pid))).toBe(false);
  }, 60_000);

  it("INTERRUPT sent to B ends A's turn 'interrupted' (what streamed kept) and A runs the new message next; STEER sent to B joins A's turn before its next model call", async () => {
    const db = await database();
    const onA = new PacedProvider({ words: 400, delayMs: 10 });
    const onB = new PacedProvider({ words: 1, delayMs: 0 });
    const a = await webProcess(db.url, onA);
    const b = await webProcess(db.url, onB);
    const { sessionId, turnId } = await a.chat.send({ message: "long" });
    const seen = view(b, sessionId);
    await expect.poll(() => seen.filter((e) => e.type === "text_delta").length, { timeout: 10_000 }).toBeGreaterThan(3);
    expect(await b.chat.send({ sessionId, message: "instead", busyInput: "INTERRUPT" })).toMatchObject({ handled: "interrupted", mode: "INTERRUPT", turnId });
    await expect.poll(() => seen.find((e) => e.turnId === turnId && e.type === "turn_completed"), { timeout: 5_000 }).toMatchObject({ stopReason: "interrupted", content: expect.stringMatching(/^w0 w1 w2 /) });
    await expect.poll(() => seen.find((e) => e.type === "queued_started"), { timeout: 5_000 }).toMatchObject({ text: "instead" });
    const started = seen.find((e) => e.type === "queued_started")!;
    await expect.poll(() => seen.some((e) => e.turnId === started.turnId && e.type === "turn_completed"), { timeout: 20_000 }).toBe(true);
    // A ran it, after the interrupted exchange (kept in its memory, as on one process); B's model was never asked.
    expect(onB.requests).toHaveLength(0);
    expect(userTexts(onA.requests[1])).toEqual(["long", "instead"]);
    expect(seen.filter((e) => e.type === "busy_input")).toHaveLength(1);

    // STEER: a turn on A whose first model call asks for a tool; a message sent to B meanwhile joins it.
    const steerA = new ToolFirstProvider(400);
    const a2 = await webProcess(db.url, steerA);
    const steered = await a2.chat.send({ message: "plan it" });
    const seen2 = view(b, steered.sessionId);
    await expect.poll(async () => (await b.chat.get(steered.sessionId)).running).toBe(true);
    expect(await b.chat.send({ sessionId: steered.sessionId, message: "use French", busyInput: "STEER" })).toMatchObject({ handled: "steered", mode: "STEER", turnId: steered.turnId });
    await expect.poll(() => seen2.some((e) => e.type === "turn_completed"), { timeout: 10_000 }).toBe(true);
    // The model call after the tool's saw the steered message (the app's agent may call the model again after it).
    expect(steerA.requests.length).toBeGreaterThanOrEqual(2);
    expect(userTexts(steerA.requests[0])).toEqual(["plan it"]);
    expect(userTexts(steerA.requests[1])).toEqual(["plan it", "use French"]);
    expect(new Set(seen2.map((e) => e.turnId))).toEqual(new Set([steered.turnId]));
    expect(seen2.find((e) => e.type === "notice")).toMatchObject({ command: "steer", text: "steered the turn: use French" });
  }, 60_000);

  it("cancel for a turn whose owner does not answer is a 503 PEER_UNAVAILABLE (not cancelled: true); once the owner is gone, its turn is ended at once and cancel says so", async () => {
    const db = await database();
    // Neither reaper passes but at start here: the dead owner's turn is ended by B's cancel itself. A's
    // must not either: the row below names 'hung' while A runs the turn, so A's reaper would claim it and
    // keep it running (it runs there), and B's cancel, its owner gone, would find it not ended.
    const a = await webProcess(db.url, new PacedProvider({ words: 400, delayMs: 10 }), 180_000, { reapEveryMs: 600_000 });
    const b = await webProcess(db.url, new PacedProvider({ words: 1, delayMs: 0 }), 180_000, { relayTimeoutMs: 400, reapEveryMs: 600_000 });
    const { sessionId, turnId } = await a.chat.send({ message: "long" });
    const seen = view(b, sessionId);
    await expect.poll(() => seen.filter((e) => e.type === "text_delta").length, { timeout: 10_000 }).toBeGreaterThan(0);
    // The row names a live process that never answers (a process hung with its heartbeat still fresh).
    await sql(db.url, "INSERT INTO cluster_processes (process_id, role, host, pid, started_at, expires_at) VALUES ('hung', 'web', 'h', 1, now(), now() + interval '1 minute')");
    await sql(db.url, "UPDATE chat_sessions SET running_owner = 'hung' WHERE session_id = $1", [sessionId]);
    await expect(b.chat.cancel(sessionId)).rejects.toMatchObject({ code: "PEER_UNAVAILABLE", message: expect.stringContaining("did not answer") });
    await expect(b.chat.send({ sessionId, message: "now", busyInput: "INTERRUPT" })).rejects.toMatchObject({ code: "PEER_UNAVAILABLE" });
    await expect.poll(() => seen.find((e) => e.type === "notice")).toMatchObject({ isError: true, text: expect.stringContaining("not delivered") });
    expect(seen.some((e) => e.type === "turn_completed" || e.type === "turn_failed")).toBe(false);
    // The hung process dies for the cluster: B's cancel ends its turn at once, as the reaper would.
    await sql(db.url, "UPDATE cluster_processes SET expires_at = now() - interval '1 second' WHERE process_id = 'hung'");
    // Nothing else claims the turn meanwhile (a loaded machine may take this long between B's read of the row and its ask).
    await new Promise((r) => setTimeout(r, 300));
    expect(await sql(db.url, "SELECT running_owner FROM chat_sessions WHERE session_id = $1", [sessionId])).toEqual([{ running_owner: "hung" }]);
    expect(await b.chat.cancel(sessionId)).toEqual({ cancelled: true });
    expect((await b.chat.events(sessionId)).filter((e) => e.turnId === turnId && e.type === "turn_failed")).toHaveLength(1);
    expect((await b.chat.get(sessionId)).running).toBe(false);
    await a.chat.cancel(sessionId); // (A was frozen out of its turn by hand: stop it)
    await a.chat.idle(sessionId);
  }, 60_000);

  it("cancel for a turn whose owner is gone, while another process's reaper that claimed it first is still ending it, waits for that end: cancelled, not a 503", async () => {
    const db = await database();
    const a = await webProcess(db.url, new PacedProvider({ words: 400, delayMs: 10 }), 180_000, { reapEveryMs: 600_000 });
    const b = await webProcess(db.url, new PacedProvider({ words: 1, delayMs: 0 }), 180_000, { reapEveryMs: 600_000 });
    // C's reaper passes every 100 ms; the end of a turn it claimed waits at a gate.
    const c = await webProcess(db.url, new PacedProvider({ words: 1, delayMs: 0 }), 180_000);
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const endOrphanedTurn = c.chat.endOrphanedTurn.bind(c.chat);
    c.chat.endOrphanedTurn = async (sessionId, turnId) => (await gate, endOrphanedTurn(sessionId, turnId));
    const { sessionId, turnId } = await a.chat.send({ message: "long" });
    const seen = view(b, sessionId);
    await expect.poll(() => seen.filter((e) => e.type === "text_delta").length, { timeout: 10_000 }).toBeGreaterThan(0);
    await sql(db.url, "INSERT INTO cluster_processes (process_id, role, host, pid, started_at, expires_at) VALUES ('hung', 'web', 'h', 1, now(), now() + interval '1 minute')");
    await sql(db.url, "UPDATE chat_sessions SET running_owner = 'hung' WHERE session_id = $1", [sessionId]);
    // A message queued on B behind the turn: B keeps the chat as it read it (owner 'hung') while it waits.
    expect(await b.chat.send({ sessionId, message: "next" })).toMatchObject({ handled: "queued", turnId });
    await sql(db.url, "UPDATE cluster_processes SET expires_at = now() - interval '1 second' WHERE process_id = 'hung'");
    await expect.poll(async () => (await sql(db.url, "SELECT running_owner FROM chat_sessions WHERE session_id = $1", [sessionId]))[0]).toEqual({ running_owner: c.executor.id });
    // B asks 'hung' (gone); its own reaper's pass claims nothing (C has it); C ends it a moment later.
    const cancelling = b.chat.cancel(sessionId);
    setTimeout(openGate, 300);
    expect(await cancelling).toEqual({ cancelled: true });
    expect((await b.chat.events(sessionId)).filter((e) => e.turnId === turnId && e.type === "turn_failed")).toHaveLength(1);
    // The message queued on B runs next, on B.
    await expect.poll(() => seen.find((e) => e.type === "queued_started"), { timeout: 5_000 }).toMatchObject({ text: "next" });
    await b.chat.idle(sessionId);
    await a.chat.cancel(sessionId); // (A was frozen out of its turn by hand: stop it)
    await a.chat.idle(sessionId);
  }, 60_000);

  it("a web process that closes (SIGTERM) ends the turns it runs at once, as a restart does; another process's chat goes on", async () => {
    const db = await database();
    const a = await webProcess(db.url, new PacedProvider({ words: 400, delayMs: 10 }), 180_000);
    const b = await webProcess(db.url, new PacedProvider({ words: 1, delayMs: 0 }), 180_000);
    const { sessionId, turnId } = await a.chat.send({ message: "long" });
    const seen = view(b, sessionId);
    await expect.poll(() => seen.filter((e) => e.type === "text_delta").length, { timeout: 10_000 }).toBeGreaterThan(0);
    const closing = Date.now();
    await a.close!();
    expect(Date.now() - closing).toBeLessThan(5_000);
    await expect.poll(() => seen.find((e) => e.type === "turn_failed"), { timeout: 3_000 }).toMatchObject({ turnId, message: expect.stringContaining("the server stopped while this turn ran") });
    expect((await b.chat.get(sessionId)).running).toBe(false);
    expect(await b.chat.send({ sessionId, message: "on B" })).toMatchObject({ handled: "started" });
    await b.chat.idle(sessionId);
    expect((await b.chat.events(sessionId)).filter((e) => e.type === "turn_completed")).toHaveLength(1);
  }, 60_000);

  it("stop sent to B for a turn of A while A closes, its relay no longer listening, finds A gone: the turn is ended and cancel says so, not a 503 after the relay's bound", async () => {
    const db = await database();
    const a = await webProcess(db.url, new PacedProvider({ words: 1, delayMs: 0 }), 180_000);
    // B's reaper passes only at start: B's cancel itself ends the turn it finds its owner gone for.
    const b = await webProcess(db.url, new PacedProvider({ words: 1, delayMs: 0 }), 180_000, { reapEveryMs: 600_000 });
    // A's reaper (every 100 ms) holds the end of a turn it claimed at a gate: A's close then waits for
    // that pass, with its relay closed.
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    cleanup.push(() => openGate());
    let held = false;
    const endOrphanedTurn = a.chat.endOrphanedTurn.bind(a.chat);
    a.chat.endOrphanedTurn = async (sessionId, turnId) => ((held = true), await gate, endOrphanedTurn(sessionId, turnId));
    const { sessionId } = await a.chat.create({ title: "closing" });
    await sql(db.url, "INSERT INTO cluster_processes (process_id, role, host, pid, started_at, expires_at) VALUES ('dead', 'web', 'h', 1, now(), now() - interval '1 second')");
    await sql(db.url, "UPDATE chat_sessions SET running_turn = 'orphan', running_owner = 'dead' WHERE session_id = $1", [sessionId]);
    await expect.poll(() => held, { timeout: 10_000 }).toBe(true);
    expect(await sql(db.url, "SELECT running_owner FROM chat_sessions WHERE session_id = $1", [sessionId])).toEqual([{ running_owner: a.executor.id }]);
    const closing = a.close!();
    const relays = async () => (await sql<{ n: number }>(db.url, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'modex-chat-turns' AND datname = current_database()"))[0].n;
    await expect.poll(relays, { timeout: 10_000 }).toBe(1); // B's alone: A's relay stopped listening
    expect(await b.chat.cancel(sessionId)).toEqual({ cancelled: true });
    const failed = async () => (await b.chat.events(sessionId)).filter((e) => e.turnId === "orphan" && e.type === "turn_failed");
    expect(await failed()).toHaveLength(1);
    openGate();
    await closing;
    expect(await failed()).toHaveLength(1); // A's held end found the turn ended
    expect(await sql(db.url, "SELECT process_id FROM cluster_processes WHERE process_id = $1", [a.executor.id])).toEqual([]);
  }, 60_000);
});

