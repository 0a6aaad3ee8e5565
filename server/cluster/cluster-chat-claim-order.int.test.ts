import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { LlmProvider, type LlmStreamOptions } from "@/server/agent/llm/llm-provider";
import type { LlmRequest } from "@/server/agent/llm/messages";
import type { LLMStreamEvent } from "@/server/agent/llm/stream-events";
import { inTransaction, type PgQueryable } from "@/server/db/pg/pg-database";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { ChatService, type ChatEvent, type SendOutcome } from "@/server/services/chat-service";
import type { ChatSessionRow, TurnStart } from "@/server/services/chat/chat-store";
import { PgChatStore } from "@/server/services/chat/pg-chat-store";
import { bridgeChatEvents } from "./chat-event-bridge";

/** Answers each message with its text; when `held`, each call streams a word, then waits for `release()`. */
class EchoProvider extends LlmProvider {
  readonly name = "echo";
  readonly requests: LlmRequest[] = [];
  /** Calls waiting for `release()`, oldest first. */
  readonly waiting: (() => void)[] = [];
  constructor(private readonly held = false) {
    super();
  }
  release(): void {
    this.waiting.shift()?.();
  }
  async *stream(request: LlmRequest, options: LlmStreamOptions): AsyncGenerator<LLMStreamEvent> {
    this.requests.push(structuredClone(request));
    yield { type: "text_delta", text: "… " };
    if (this.held) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (options.signal.aborted) throw new DOMException("aborted", "AbortError");
    yield { type: "text_delta", text: `re: ${userTexts(request).at(-1)}` };
    yield { type: "finish", reason: "stop" };
  }
}

/** The user's messages of a request (the agent's own reminders aside). */
const userTexts = (r: LlmRequest) => r.messages.filter((m) => m.role === "user").map((m) => String(m.content)).filter((t) => !t.startsWith("<system-reminder>"));

/**
 * A process's chat database that, once armed, holds the transaction of its next claim of a chat (a
 * turn's row update and first events, one commit) until `open()`: the claim is on its way while the
 * test acts meanwhile. The claim's batch is the first transaction to begin after the claim was written
 * (a batch already running began before it).
 */
class ClaimGate implements PgQueryable {
  private armed = false;
  private claimed = false;
  private release: () => void = () => {};
  private held: Promise<void> = Promise.resolve();
  /** A claim waits at the gate. */
  waiting = false;
  constructor(private readonly pool: PgQueryable) {}
  arm(): void {
    this.armed = true;
    this.held = new Promise<void>((resolve) => (this.release = resolve));
  }
  open(): void {
    this.release();
  }
  /** A claim was written (ClaimGatedStore.startTurn). */
  claim(): void {
    if (this.armed) this.claimed = true;
  }
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>> {
    return this.pool.query<R>(config);
  }
  async transaction<T>(fn: (client: PgQueryable) => Promise<T>): Promise<T> {
    if (this.armed && this.claimed) {
      this.armed = this.claimed = false;
      this.waiting = true;
      await this.held;
      this.waiting = false;
    }
    return inTransaction(this.pool, fn);
  }
}

class ClaimGatedStore extends PgChatStore {
  constructor(private readonly gate: ClaimGate) {
    super(gate);
  }
  override startTurn(start: TurnStart): Promise<ChatSessionRow | null> {
    this.gate.claim();
    return super.startTurn(start);
  }
}

const texts = (events: ChatEvent[], type: "user_message" | "queued_started") => events.filter((e) => e.type === type).map((e) => (e as { text: string }).text);

/**
 * Two web processes' chat services on one PostgreSQL database. A message sent to process A for an idle
 * chat claims the chat's row; B's turn claims it first while A's claim is on its way (the claim's
 * commit is held), and a second message reaches A meanwhile.
 */
describe("messages sent to one process of a cluster keep their order when that process's claim of the chat loses", () => {
  const cleanup: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  async function twoProcesses() {
    const database = await PgTestDatabase.create();
    cleanup.push(() => database[Symbol.asyncDispose]());
    const gate = new ClaimGate(database.open().acks);
    const onA = new EchoProvider();
    const onB = new EchoProvider(true);
    const a = new ChatService({ provider: onA, model: "echo", store: new ClaimGatedStore(gate), cluster: { owner: "a" } });
    const b = new ChatService({ provider: onB, model: "echo", store: new PgChatStore(database.open().acks), cluster: { owner: "b" } });
    for (const chat of [a, b]) {
      const feed = await bridgeChatEvents(database.url, chat);
      cleanup.push(() => feed.close());
    }
    return { gate, a, b, onA, onB };
  }

  it("QUEUE: the first message sent to A runs before the second, both after B's turn, each once", async () => {
    const { gate, a, b, onA, onB } = await twoProcesses();
    const { sessionId } = await a.create({ title: "order" });
    gate.arm();
    const first = a.send({ sessionId, message: "first" });
    await expect.poll(() => gate.waiting, { interval: 5 }).toBe(true);
    // B's message claims the chat while A's claim is held: B's turn runs (and waits for the test).
    const onBAnswer = await b.send({ sessionId, message: "on B" });
    expect(onBAnswer).toMatchObject({ handled: "started" });
    // A second message reaches A while its claim is still on its way (a moment for A to take it, had it
    // decided at once, as it did against the turn being claimed).
    const second = a.send({ sessionId, message: "second" });
    await new Promise((r) => setTimeout(r, 100));
    gate.open();
    const answers: SendOutcome[] = await Promise.all([first, second]);
    await expect.poll(() => onB.waiting.length).toBe(1);
    onB.release();
    await expect.poll(async () => (await b.events(sessionId)).filter((e) => e.type === "turn_completed").length, { timeout: 10_000 }).toBe(3);
    await a.idle(sessionId);
    const events = await b.events(sessionId);
    expect(texts(events, "user_message")).toEqual(["on B", "first", "second"]);
    expect(texts(events, "queued_started")).toEqual(["first", "second"]);
    // Both wait behind B's turn, the turn that runs (not one whose claim lost).
    expect(answers).toEqual([
      { sessionId, turnId: onBAnswer.turnId, handled: "queued", mode: "QUEUE" },
      { sessionId, turnId: onBAnswer.turnId, handled: "queued", mode: "QUEUE" },
    ]);
    expect(events.filter((e) => e.type === "busy_input").map((e) => [e.turnId, (e as { text: string }).text])).toEqual([
      [onBAnswer.turnId, "first"],
      [onBAnswer.turnId, "second"],
    ]);
    // One turn at a time: each turn's events are one run of the transcript, and nothing failed.
    const runs = events.map((e) => e.turnId).filter((id, i, all) => i === 0 || all[i - 1] !== id);
    expect(runs).toHaveLength(3);
    expect(events.some((e) => e.type === "turn_failed")).toBe(false);
    expect(onA.requests.map(userTexts)).toEqual([
      ["on B", "first"],
      ["on B", "first", "second"],
    ]);
    expect(onB.requests).toHaveLength(1);
    expect(await a.get(sessionId)).toMatchObject({ running: false, queued: 0, turns: 3 });
  }, 30_000);

  it("a message sent to A while A's claim for a queued message is on its way is decided against the turn that runs: the claim lost to B's, so both wait behind it, the queued one first", async () => {
    const { gate, a, b, onA, onB } = await twoProcesses();
    const first = await b.send({ message: "B1" });
    const { sessionId } = first;
    // A message sent to A while B runs its turn waits behind it on A (QUEUE).
    expect(await a.send({ sessionId, message: "queued on A" })).toMatchObject({ handled: "queued", turnId: first.turnId });
    // B's turn ends: A claims the free chat for its queued message, and that claim is held on its way.
    gate.arm();
    await expect.poll(() => onB.waiting.length).toBe(1);
    onB.release();
    await expect.poll(() => gate.waiting, { timeout: 5_000, interval: 5 }).toBe(true);
    // B's next message claims the chat meanwhile; a message reaches A.
    const second = await b.send({ sessionId, message: "B2" });
    expect(second).toMatchObject({ handled: "started" });
    const onAAnswer = a.send({ sessionId, message: "sent to A" });
    await new Promise((r) => setTimeout(r, 100));
    gate.open();
    expect(await onAAnswer).toEqual({ sessionId, turnId: second.turnId, handled: "queued", mode: "QUEUE" });
    await expect.poll(() => onB.waiting.length).toBe(1);
    onB.release();
    await expect.poll(async () => (await b.events(sessionId)).filter((e) => e.type === "turn_completed").length, { timeout: 10_000 }).toBe(4);
    await a.idle(sessionId);
    const events = await b.events(sessionId);
    expect(texts(events, "user_message")).toEqual(["B1", "B2", "queued on A", "sent to A"]);
    expect(events.filter((e) => e.type === "busy_input").map((e) => [e.turnId, (e as { text: string }).text])).toEqual([
      [first.turnId, "queued on A"],
      [second.turnId, "sent to A"],
    ]);
    expect(events.map((e) => e.turnId).filter((id, i, all) => i === 0 || all[i - 1] !== id)).toHaveLength(4);
    expect(events.some((e) => e.type === "turn_failed")).toBe(false);
    expect(onA.requests.map(userTexts).map((t) => t.at(-1))).toEqual(["queued on A", "sent to A"]);
    expect(await a.get(sessionId)).toMatchObject({ running: false, queued: 0, turns: 4 });
  }, 30_000);
});
