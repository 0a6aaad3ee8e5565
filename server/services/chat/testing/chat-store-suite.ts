import { expect, it } from "vitest";
import type { ApprovalTransaction } from "@/server/agent/approval/approval-types";
import { snapshotTurn } from "@/server/agent/approval/turn-snapshot";
import type { TokenTotals } from "@/server/agent/extensions/builtin/token-totals";
import type { ChatMessage } from "@/server/agent/llm/messages";
import { testTurn } from "@/server/agent/testing/turn-fixture";
import { newSnowflake } from "@/server/graph/ids";
import type { ChatEvent } from "../chat-event";
import type { ChatInputRow, ChatSessionRow, ChatStore, NewChatEvent } from "../chat-store";
import { UNTITLED } from "../chat-title";

/** What the ChatStore tests need of a backend. */
export interface ChatStoreBackend {
  store(): ChatStore;
  /** A store on new connections to the same database (another process, or a restart); none in memory. */
  reopened?(): ChatStore;
  /** `write(fn)` is one transaction: a throw from `fn` writes nothing (not the in-memory store). */
  transactional: boolean;
  /** The store keeps a running turn's owner (`turnOwner`); SQLite, one process's, does not. */
  keepsOwner: boolean;
  /** token_budget's totals in the same database (a chat's total is a row it owns); none in memory. */
  tokenTotals?(): TokenTotals;
}

const session = (patch: Partial<ChatSessionRow> = {}): ChatSessionRow => ({
  sessionId: newSnowflake(),
  title: "A chat",
  agent: null,
  turns: 0,
  runningTurn: null,
  awaitingApproval: null,
  createdAt: 1_000,
  updatedAt: 1_000,
  ...patch,
});

const said = (sessionId: string, text: string, turnId = "t1"): NewChatEvent => ({ type: "user_message", text, sessionId, turnId, at: 5 });
const delta = (sessionId: string, text: string, turnId = "t1"): NewChatEvent => ({ type: "text_delta", text, sessionId, turnId, at: 6 });

const input = (sessionId: string, mode: ChatInputRow["mode"], text: string): ChatInputRow => ({ inputId: newSnowflake(), sessionId, mode, text, at: 9 });

const transaction = (sessionId: string, status: ApprovalTransaction["status"] = "pending"): ApprovalTransaction => ({
  id: newSnowflake(),
  sessionId,
  turnId: "t1",
  call: { id: "c1", name: "deploy", arguments: '{"service":"web"}' },
  status,
  createdAt: 7,
});

/** Every store answers what it was told, committed when `write`'s answer or `committed()` says so. */
export function chatStoreTests(backend: ChatStoreBackend): void {
  /** The store a reader elsewhere has: a reopened one, or the same one in memory. */
  const reader = (store: ChatStore) => backend.reopened?.() ?? store;

  it("keeps sessions: created, listed most recent first", async () => {
    const store = backend.store();
    const a = session({ title: "Trip to Oslo", updatedAt: 2_000 });
    const b = session({ title: "Deploy the web", updatedAt: 3_000 });
    await store.write(() => {
      store.createSession(a);
      store.createSession(b);
    });
    const other = reader(store);
    expect(await other.session(a.sessionId)).toEqual(a);
    expect(await other.session("nobody")).toBeNull();
    const listed = (await other.sessions()).map((s) => s.sessionId);
    expect(listed.indexOf(b.sessionId)).toBeLessThan(listed.indexOf(a.sessionId));
  });

  it("changes a session's row field by field: a turn starts, suspends, resumes and ends; a rename keeps the rest", async () => {
    const store = backend.store();
    const s = session({ updatedAt: 2_000 });
    await store.write(() => store.createSession(s));
    const owned = (owner: string | null) => (backend.keepsOwner && owner ? { turnOwner: owner } : {});
    const running = { ...s, runningTurn: "t1", turns: 1, updatedAt: 3_000, ...owned("p1") };
    expect(await store.write(() => store.startTurn({ sessionId: s.sessionId, turnId: "t1", owner: "p1", at: 3_000 }))).toEqual(running);
    const renamed = { ...running, title: "Renamed" };
    expect(await store.write(() => store.renameSession(s.sessionId, "Renamed"))).toEqual(renamed);
    const suspended = { ...renamed, awaitingApproval: "x1" };
    expect(await store.write(() => store.suspendTurn(s.sessionId, "t1", "x1"))).toEqual(suspended);
    const resumed = { ...suspended, awaitingApproval: null, ...owned("p2") };
    expect(await store.write(() => store.resumeTurn(s.sessionId, "t1", "p2"))).toEqual(resumed);
    expect(await reader(store).session(s.sessionId)).toEqual(resumed);
    // An end at an earlier time than the row's leaves its time.
    const { turnOwner: _, ...ended } = { ...resumed, runningTurn: null };
    expect(await store.write(() => store.endTurn(s.sessionId, "t1", 2_500))).toEqual(ended);
    expect(await reader(store).session(s.sessionId)).toEqual(ended);
    expect(await store.write(() => store.renameSession("nobody", "x"))).toBeNull();
  });

  it("a turn starts only in a free chat, and only its own end, suspension or resumption changes the row", async () => {
    const store = backend.store();
    const s = session();
    await store.write(() => {
      store.createSession(s);
      store.startTurn({ sessionId: s.sessionId, turnId: "t1", owner: "p1", at: 2_000 });
    });
    const before = await reader(store).session(s.sessionId);
    expect(before).toMatchObject({ runningTurn: "t1", turns: 1 });
    // What a process with an older copy of the row (another turn in it) would write changes nothing.
    expect(await store.write(() => store.startTurn({ sessionId: s.sessionId, turnId: "t2", owner: "p2", at: 5_000 }))).toBeNull();
    expect(await store.write(() => store.endTurn(s.sessionId, "t0", 5_000))).toBeNull();
    expect(await store.write(() => store.suspendTurn(s.sessionId, "t0", "x9"))).toBeNull();
    expect(await store.write(() => store.resumeTurn(s.sessionId, "t0", "p2"))).toBeNull();
    expect(await store.write(() => store.startTurn({ sessionId: "nobody", turnId: "t3", owner: null, at: 1 }))).toBeNull();
    expect(await reader(store).session(s.sessionId)).toEqual(before);
    // Outside `write` too: the answer is the row as the change left it.
    expect(await store.endTurn(s.sessionId, "t1", 6_000)).toMatchObject({ runningTurn: null, turns: 1, updatedAt: 6_000 });
    expect(await store.startTurn({ sessionId: s.sessionId, turnId: "t2", owner: null, at: 7_000 })).toMatchObject({ runningTurn: "t2", turns: 2, updatedAt: 7_000 });
    await store.committed();
    expect(await reader(store).session(s.sessionId)).toMatchObject({ runningTurn: "t2", turns: 2, updatedAt: 7_000 });
  });

  it("stores an event while its turn runs only: with the claim that starts the turn, before the end that ends it", async () => {
    const store = backend.store();
    const other = reader(store);
    const s = session();
    await store.write(() => store.createSession(s));
    const start = (on: ChatStore, turnId: string, text: string) =>
      on.write(() => {
        on.startTurn({ sessionId: s.sessionId, turnId, owner: null, at: 2_000 });
        return on.appendWhileRunning(said(s.sessionId, text, turnId));
      });
    // Two turns claim the free chat at once (from two processes where the store has them): one runs.
    const [first, second] = await Promise.all([start(store, "t1", "first"), start(other, "t2", "second")]);
    const won = first ?? second;
    expect([first, second].filter((e) => e === null)).toHaveLength(1);
    expect(won).toMatchObject({ type: "user_message", turnId: (await store.session(s.sessionId))?.runningTurn });
    expect(await store.events(s.sessionId, 0)).toEqual([won]);
    const loser = won === first ? "t2" : "t1";
    // An end of a turn that does not run (the chat moved on) writes nothing; the running one's end does.
    const end = (turnId: string) =>
      store.write(() => {
        const failed = store.appendWhileRunning({ type: "turn_failed", message: "gone", sessionId: s.sessionId, turnId, at: 3_000 });
        store.endTurn(s.sessionId, turnId, null);
        return failed;
      });
    expect(await end(loser)).toBeNull();
    expect(await reader(store).session(s.sessionId)).toMatchObject({ runningTurn: won!.turnId });
    const failed = await end(won!.turnId);
    expect(failed).toMatchObject({ type: "turn_failed", turnId: won!.turnId });
    expect(await reader(store).events(s.sessionId, 0)).toEqual([won, failed]);
    expect(await reader(store).session(s.sessionId)).toMatchObject({ runningTurn: null, turns: 1 });
  });

  it("searches titles and what the user sent, case-insensitively, with % and _ taken literally", async () => {
    const store = backend.store();
    const tag = newSnowflake();
    const a = session({ title: `Trip ${tag}` });
    const b = session({ title: "Untitled" });
    const c = session({ title: "100% sure" });
    await store.write(() => {
      for (const s of [a, b, c]) store.createSession(s);
      store.appendEvent(said(b.sessionId, `deploy WEB-${tag} now`));
      store.appendEvent(delta(a.sessionId, `the model said web-${tag}`));
    });
    const ids = async (q: string) => (await store.sessions(q)).map((s) => s.sessionId).filter((id) => [a, b, c].some((s) => s.sessionId === id));
    expect(await ids(`trip ${tag}`)).toEqual([a.sessionId]);
    expect(await ids(`web-${tag}`)).toEqual([b.sessionId]); // the user's message, not the model's
    expect(await ids("100%")).toEqual([c.sessionId]);
    expect(await ids("10_%")).toEqual([]);
  });

  it("numbers events in order, replays them after a seq, and says where a stream opened now starts", async () => {
    const store = backend.store();
    const s = session();
    const other = session();
    await store.write(() => store.createSession(s));
    const before = await store.lastSeq(s.sessionId);
    const numbered: ChatEvent[] = [];
    for (let i = 0; i < 5; i++) numbered.push(await store.appendEvent(i % 2 ? delta(other.sessionId, `o${i}`) : delta(s.sessionId, `s${i}`)));
    const seqs = numbered.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(5);
    expect(seqs[0]).toBeGreaterThan(before);
    await store.committed();
    const mine = numbered.filter((e) => e.sessionId === s.sessionId);
    expect(await store.events(s.sessionId, 0)).toEqual(mine);
    expect(await reader(store).events(s.sessionId, mine[0].seq)).toEqual(mine.slice(1));
    expect(await store.events(s.sessionId, 0, 2)).toEqual(mine.slice(0, 2));
    const now = await store.lastSeq(s.sessionId);
    expect(now).toBeGreaterThanOrEqual(mine.at(-1)!.seq);
    const next = await store.appendEvent(said(s.sessionId, "again"));
    expect(next.seq).toBeGreaterThan(now);
    expect(next).toEqual({ ...said(s.sessionId, "again"), seq: next.seq });
  });

  it("write(fn) is committed when it answers; events outside it once committed() resolves, afterCommit runs after", async () => {
    const store = backend.store();
    const s = session();
    await store.write(() => {
      store.createSession(s);
      store.appendEvent(said(s.sessionId, "hello"));
    });
    const other = reader(store);
    expect(await other.session(s.sessionId)).toEqual(s);
    expect((await other.events(s.sessionId, 0)).map((e) => e.type)).toEqual(["user_message"]);

    const streamed = await store.appendEvent(delta(s.sessionId, "hi"));
    const seen = await new Promise<ChatEvent[]>((resolve) => store.afterCommit(() => void Promise.resolve(reader(store).events(s.sessionId, 0)).then(resolve)));
    expect(seen.at(-1)).toEqual(streamed);
    await store.committed();
    expect(await other.events(s.sessionId, streamed.seq - 1)).toEqual([streamed]);
  });

  if (backend.transactional) {
    it("write(fn) that throws writes nothing", async () => {
      const store = backend.store();
      const s = session();
      expect(() =>
        store.write(() => {
          store.createSession(s);
          store.appendEvent(said(s.sessionId, "lost"));
          throw new Error("no");
        }),
      ).toThrow("no");
      await store.committed();
      expect(await reader(store).session(s.sessionId)).toBeNull();
      expect(await store.events(s.sessionId, 0)).toEqual([]);
    });
  }

  it("keeps approvals with the suspended turn's snapshot, and their decision", async () => {
    const store = backend.store();
    const s = session();
    const t = transaction(s.sessionId);
    const snapshot = { turnId: "t1", sessionId: s.sessionId, takenAt: 8, turn: { usage: { inputTokens: 1, outputTokens: 2 } } } as never;
    await store.write(() => store.saveApproval({ transaction: t, snapshot }));
    expect(await reader(store).approval(t.id)).toEqual({ transaction: t, snapshot });
    const decided = { ...t, status: "approved" as const, decidedAt: 9 };
    await store.write(() => store.saveApproval({ transaction: decided, snapshot: null }));
    expect(await reader(store).approval(t.id)).toEqual({ transaction: decided, snapshot: null });
    expect(await store.approval("nothing")).toBeNull();
  });

  it("keeps the running turn's latest checkpoint: only while it runs, gone when it ends or the chat is deleted", async () => {
    const store = backend.store();
    const [s, other] = [session(), session()];
    const turnId = newSnowflake();
    const otherTurn = newSnowflake();
    const checkpoint = (sessionId: string, turn: string, iteration: number) =>
      snapshotTurn({ ...testTurn({ sessionId, turnId: turn, startedAt: 5, messages: [{ role: "user", content: "go" }] }), iteration }, "LLM", 10 + iteration);
    await store.write(() => {
      store.createSession(s);
      store.createSession(other);
    });
    await store.write(() => store.saveCheckpoint(checkpoint(s.sessionId, turnId, 1)));
    expect(await reader(store).checkpoint(turnId)).toBeNull(); // the turn does not run (yet)
    await store.write(() => {
      store.startTurn({ sessionId: s.sessionId, turnId, owner: null, at: 2_000 });
      store.startTurn({ sessionId: other.sessionId, turnId: otherTurn, owner: null, at: 2_000 });
    });
    await store.write(() => store.saveCheckpoint(checkpoint(s.sessionId, turnId, 1)));
    await store.write(() => store.saveCheckpoint(checkpoint(s.sessionId, turnId, 2)));
    await store.write(() => store.saveCheckpoint(checkpoint(other.sessionId, otherTurn, 1)));
    const saved = await reader(store).checkpoint(turnId);
    expect(saved).toEqual(checkpoint(s.sessionId, turnId, 2));
    expect(saved?.turn.messages).toEqual([{ role: "user", content: "go" }]);
    await store.write(() => store.endTurn(s.sessionId, turnId, 3_000));
    expect(await reader(store).checkpoint(turnId)).toBeNull();
    await store.write(() => store.deleteSession(other.sessionId));
    expect(await reader(store).checkpoint(otherTurn)).toBeNull();
  });

  it("keeps a session's conversation, replaced whole on save", async () => {
    const store = backend.store();
    const s = session();
    expect(await store.loadMemory(s.sessionId)).toEqual([]);
    const first: ChatMessage[] = [{ role: "user", content: "I am Ada." }];
    store.saveMemory(s.sessionId, first);
    const both: ChatMessage[] = [...first, { role: "assistant", content: "Hello, Ada." }];
    store.saveMemory(s.sessionId, both);
    expect(await store.loadMemory(s.sessionId)).toEqual(both);
    await store.committed();
    expect(await reader(store).loadMemory(s.sessionId)).toEqual(both);
  });

  it("keeps a session's context summary beside its messages: each save leaves the other as it is", async () => {
    const store = backend.store();
    const s = session();
    expect(await store.loadSummary(s.sessionId)).toBeNull();
    const messages: ChatMessage[] = [{ role: "user", content: "I am Ada." }, { role: "assistant", content: "Hello, Ada." }];
    const summary = { text: "The user is Ada.", coveredMessages: 2, digest: "d".repeat(32), prunedMessages: 2, tokensBefore: 900, tokensAfter: 120, mode: "consolidated" as const, at: 5 };
    // A summary written before the chat's first messages are saved (a first turn over budget) still keeps them.
    await store.saveSummary(s.sessionId, summary);
    await store.saveMemory(s.sessionId, messages);
    expect(await store.loadSummary(s.sessionId)).toEqual(summary);
    const next = { ...summary, text: "Ada asked twice.", coveredMessages: 4, mode: "pruned" as const };
    await store.saveSummary(s.sessionId, next);
    await store.committed();
    expect(await reader(store).loadSummary(s.sessionId)).toEqual(next);
    expect(await reader(store).loadMemory(s.sessionId)).toEqual(messages);
    await store.write(() => store.deleteSession(s.sessionId));
    expect(await reader(store).loadSummary(s.sessionId)).toBeNull();
  });

  if (backend.tokenTotals) {
    const totalsOf = backend.tokenTotals;
    it("deletes a chat's token_budget total with the chat, and no other chat's", async () => {
      const store = backend.store();
      const totals = totalsOf();
      const [gone, kept] = [session(), session()];
      await store.write(() => {
        store.createSession(gone);
        store.createSession(kept);
      });
      await totals.add(gone.sessionId, 300);
      await totals.add(kept.sessionId, 40);
      await store.write(() => store.deleteSession(gone.sessionId));
      expect(await totals.get(gone.sessionId)).toBe(0);
      expect(await totals.get(kept.sessionId)).toBe(40);
    });
  }

  it("keeps waiting inputs in the order they run; a turn claims the chat for one only while it waits, and marks it started", async () => {
    const store = backend.store();
    const s = session({ runningTurn: "t0", turns: 1 });
    const [q1, st, q2, i1, i2, gone] = [input(s.sessionId, "QUEUE", "q1"), input(s.sessionId, "STEER", "st"), input(s.sessionId, "QUEUE", "q2"), input(s.sessionId, "INTERRUPT", "i1"), input(s.sessionId, "INTERRUPT", "i2"), input(s.sessionId, "QUEUE", "gone")];
    await store.write(() => {
      store.createSession(s);
      for (const i of [q1, st, q2, i1, i2, gone]) store.addInput(i);
    });
    await store.write(() => store.dropInput(gone.inputId));
    const texts = async () => (await reader(store).waitingInputs(s.sessionId)).map((i) => i.text);
    // INTERRUPT ones first, the latest first; then the others in the order they came (a STEER left waiting too).
    expect(await texts()).toEqual(["i2", "i1", "q1", "st", "q2"]);
    expect((await reader(store).waitingInputs(s.sessionId))[0]).toEqual(i2);
    // What a chat's summary says is queued, read by any process.
    const other = session();
    await store.write(() => store.createSession(other));
    expect(await reader(store).waitingCounts([s.sessionId, other.sessionId, "no-such-chat"])).toEqual(new Map([[s.sessionId, 5]]));
    expect(await reader(store).waitingCounts([])).toEqual(new Map());
    // A running chat has none to deliver; a free one has, once idle since before the bound.
    expect(await reader(store).waitingSessions(null)).not.toContain(s.sessionId);
    await store.write(() => store.endTurn(s.sessionId, "t0", 2_000));
    expect(await reader(store).waitingSessions(null)).toContain(s.sessionId);
    expect(await reader(store).waitingSessions(3_000)).toContain(s.sessionId);
    expect(await reader(store).waitingSessions(2_000)).not.toContain(s.sessionId);

    expect(await store.write(() => store.startTurn({ sessionId: s.sessionId, turnId: "t1", owner: null, at: 3_000, input: i2.inputId }))).toMatchObject({ runningTurn: "t1" });
    expect(await texts()).toEqual(["i1", "q1", "st", "q2"]);
    await store.write(() => store.endTurn(s.sessionId, "t1", 3_000));
    // Started already (by another process, say): the chat is not claimed for it again.
    expect(await store.write(() => store.startTurn({ sessionId: s.sessionId, turnId: "t2", owner: null, at: 4_000, input: i2.inputId }))).toBeNull();
    expect(await reader(store).session(s.sessionId)).toMatchObject({ runningTurn: null, turns: 2 });
    // Nor for an input while another turn runs (it stays waiting).
    await store.write(() => store.startTurn({ sessionId: s.sessionId, turnId: "t3", owner: null, at: 4_000 }));
    expect(await store.write(() => store.startTurn({ sessionId: s.sessionId, turnId: "t4", owner: null, at: 4_000, input: i1.inputId }))).toBeNull();
    await store.write(() => store.steeredInputs([st.inputId], "t3"));
    expect(await texts()).toEqual(["i1", "q1", "q2"]);
    expect(await reader(store).waitingCounts([s.sessionId])).toEqual(new Map([[s.sessionId, 3]]));
    await store.write(() => store.deleteSession(s.sessionId));
    expect(await reader(store).waitingInputs(s.sessionId)).toEqual([]);
  });

  it("a chat's first turn titles it while it is untitled; a named chat keeps its name", async () => {
    const store = backend.store();
    const [untitled, named] = [session({ title: UNTITLED }), session({ title: "Mine" })];
    await store.write(() => {
      store.createSession(untitled);
      store.createSession(named);
    });
    expect(await store.write(() => store.startTurn({ sessionId: untitled.sessionId, turnId: "t1", owner: null, at: 2_000, title: "deploy the web" }))).toMatchObject({ title: "deploy the web" });
    expect(await store.write(() => store.startTurn({ sessionId: named.sessionId, turnId: "t1", owner: null, at: 2_000, title: "deploy the web" }))).toMatchObject({ title: "Mine" });
    await store.write(() => store.endTurn(untitled.sessionId, "t1", 3_000));
    expect(await store.write(() => store.startTurn({ sessionId: untitled.sessionId, turnId: "t2", owner: null, at: 4_000, title: "later" }))).toMatchObject({ title: "deploy the web" });
    expect((await reader(store).session(untitled.sessionId))?.title).toBe("deploy the web");
  });

  it("deletes a session with its events, approvals and conversation, and nothing of another", async () => {
    const store = backend.store();
    const [gone, kept] = [session(), session()];
    const [t1, t2] = [transaction(gone.sessionId), transaction(kept.sessionId)];
    await store.write(() => {
      for (const s of [gone, kept]) {
        store.createSession(s);
        store.appendEvent(said(s.sessionId, "hi"));
        store.saveMemory(s.sessionId, [{ role: "user", content: "hi" }]);
      }
      store.saveApproval({ transaction: t1, snapshot: null });
      store.saveApproval({ transaction: t2, snapshot: null });
    });
    await store.write(() => store.deleteSession(gone.sessionId));
    const other = reader(store);
    expect(await other.session(gone.sessionId)).toBeNull();
    expect(await other.events(gone.sessionId, 0)).toEqual([]);
    expect(await other.approval(t1.id)).toBeNull();
    expect(await other.loadMemory(gone.sessionId)).toEqual([]);
    expect(await other.session(kept.sessionId)).toEqual(kept);
    expect(await other.events(kept.sessionId, 0)).toHaveLength(1);
    expect(await other.approval(t2.id)).not.toBeNull();
    expect(await other.loadMemory(kept.sessionId)).toHaveLength(1);
  });
}
