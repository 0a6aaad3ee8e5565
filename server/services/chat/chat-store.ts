import type { Awaitable } from "@/server/graph/awaitable";
import type { ApprovalTransaction } from "@/server/agent/approval/approval-types";
import type { TurnSnapshot } from "@/server/agent/approval/turn-snapshot";
import type { ChatMessage } from "@/server/agent/llm/messages";
import type { SpanRecord } from "@/server/agent/trace/span-record";
import type { ContextSummary } from "@/server/agent/memory/context-summary";
import type { BusyInputMode, ChatEvent } from "./chat-event";
import { UNTITLED } from "./chat-title";

export interface ChatSessionRow {
  sessionId: string;
  title: string;
  agent: string | null;
  turns: number;
  /** The turn in progress, suspended ones included. */
  runningTurn: string | null;
  /** The approval the running turn waits on. */
  awaitingApproval: string | null;
  /**
   * On a PostgreSQL cluster: the web process that runs the running turn (its executor id, whose heartbeat
   * tells whether it lives). Kept only with a running turn; the stores of one process may ignore it.
   */
  turnOwner?: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface ChatApprovalRow {
  transaction: ApprovalTransaction;
  /** The suspended turn (kept while it waits; the turn resumes from it). */
  snapshot: TurnSnapshot | null;
}

/** A turn starting in a chat: `owner` runs it (a cluster's process; null on one process), at `at`. */
export interface TurnStart {
  sessionId: string;
  turnId: string;
  owner: string | null;
  at: number;
  /**
   * The waiting input (ChatInputRow) the turn runs: the chat is claimed only if it still waits, and it is
   * marked started by this turn with the claim, so a message runs once whichever process starts it.
   */
  input?: string | null;
  /** Names the chat if it is still untitled (UNTITLED, and no turn yet): its first message is its title. */
  title?: string | null;
}


/**
 * A message sent while a turn ran (busy input), acknowledged once stored: it waits until it runs as a
 * turn of its own (`TurnStart.input`) or joins the running turn (`steeredInputs`).
 */
export interface ChatInputRow {
  inputId: string;
  sessionId: string;
  mode: BusyInputMode;
  text: string;
  at: number;
}

/** An event as the chat service publishes it: the store numbers it (`seq`). */
export type NewChatEvent = ChatEvent extends infer E ? (E extends ChatEvent ? Omit<E, "seq"> : never) : never;

/**
 * Where chats live. Methods answer with `Awaitable`: the in-memory and SQLite stores at once, the
 * PostgreSQL one with promises.
 *
 * Two kinds of write. `write(fn)` runs what a caller acknowledges as one transaction, committed when its
 * answer is (returned, or resolved). Other writes outside it: on SQLite they ride the connection's group
 * commit (a turn streams many events; `afterCommit` and `committed` tell when they are durable); a store
 * answering with a promise resolves it once that write is committed. Reads see every write made before
 * them, committed or not.
 *
 * Event numbers (`seq`) are the store's: they only grow, per session and overall, and may skip numbers
 * (readers ask for `seq > after`). Several processes may append to one PostgreSQL database; a session's
 * events still commit in the order of their numbers there.
 */
export interface ChatStore {
  /**
   * Runs `fn` as one transaction, committed when the answer is. `fn` makes this store's write calls,
   * synchronously (no reads, no awaits): SQLite runs them inside its transaction, PostgreSQL sends them as
   * one transaction once `fn` returned. A throw from `fn` writes nothing.
   */
  write<T>(fn: () => T): Awaitable<T>;
  /** Runs `fn` once everything written so far is committed (now, when nothing waits); never if it was lost. */
  afterCommit(fn: () => void): void;
  /** Resolves once everything written so far is committed; rejects when it was lost. */
  committed(): Promise<void>;

  /**
   * A chat's row is changed only by these, each writing the fields it changes, in one statement, and
   * answering the row as it now is (null: it changed nothing). On a cluster another process may have
   * changed the row since this one read it: what that process wrote stays.
   */
  createSession(row: ChatSessionRow): Awaitable<void>;
  /** Sets the title alone. Null: no such chat. */
  renameSession(sessionId: string, title: string): Awaitable<ChatSessionRow | null>;
  /**
   * Claims the chat for the turn if none runs: the turn runs, owned by `owner`, one more turn counted,
   * updated at `at` (never earlier than it was). Null: another turn runs (or no such chat).
   */
  startTurn(start: TurnStart): Awaitable<ChatSessionRow | null>;
  /** The running turn `turnId` waits on approval `transactionId`. Null: that turn does not run. */
  suspendTurn(sessionId: string, turnId: string, transactionId: string): Awaitable<ChatSessionRow | null>;
  /** The running turn `turnId` waits on no approval any more and runs on `owner`. Null: that turn does not run. */
  resumeTurn(sessionId: string, turnId: string, owner: string | null): Awaitable<ChatSessionRow | null>;
  /**
   * The chat is free, if `turnId` still runs (a stale copy never frees another turn); updated at `at`
   * (never earlier than it was; null: not updated). Null: that turn does not run.
   */
  endTurn(sessionId: string, turnId: string, at: number | null): Awaitable<ChatSessionRow | null>;
  deleteSession(sessionId: string): Awaitable<void>;
  session(sessionId: string): Awaitable<ChatSessionRow | null>;
  /** Most recently updated first; `query` matches the title or any message the user sent (case-insensitive). */
  sessions(query?: string): Awaitable<ChatSessionRow[]>;

  /**
   * Numbers the event (the next `seq`) and stores it. A synchronous answer comes before the commit
   * (`afterCommit` tells when); a promise resolves once the event is committed (with its `write`).
   */
  appendEvent(event: NewChatEvent): Awaitable<ChatEvent>;
  /**
   * As `appendEvent`, if the event's turn is the chat's running turn as the event is written, and holds
   * the row until the commit (nothing else changes the chat meanwhile); null: it is not, nothing is
   * stored. A turn's first events, after its `startTurn` in one `write`, are stored only if it claimed
   * the chat; an event before an `endTurn` of its turn in one `write`, only if that ends the turn.
   */
  appendWhileRunning(event: NewChatEvent): Awaitable<ChatEvent | null>;
  events(sessionId: string, afterSeq: number, limit?: number): Awaitable<ChatEvent[]>;
  /** A number no event of the session given out so far exceeds and every later one will: a stream opened from it sees only what comes next. */
  lastSeq(sessionId: string): Awaitable<number>;

  /** Stores a waiting input (its id is a snowflake: inputs wait in the order of their ids). */
  addInput(input: ChatInputRow): Awaitable<void>;
  /** The waiting inputs joined the running turn `turnId` (STEER): they no longer wait. */
  steeredInputs(inputIds: readonly string[], turnId: string): Awaitable<void>;
  /** The sender was told the input was not delivered (a relay that failed): it waits no more. */
  dropInput(inputId: string): Awaitable<void>;
  /**
   * A chat's waiting inputs in the order they run (inputOrder): INTERRUPT ones first (the latest first),
   * then the others in the order they came (a STEER one left waiting runs as a turn of its own).
   */
  waitingInputs(sessionId: string): Awaitable<ChatInputRow[]>;
  /** Chats free of any turn with inputs waiting, left that way since before `idleBefore` (null: whenever). */
  waitingSessions(idleBefore: number | null): Awaitable<string[]>;
  /**
   * How many inputs wait in each of these chats (a chat with none is absent): the `queued` a chat's
   * summary says, the same on every process of a cluster, whichever holds them in memory.
   */
  waitingCounts(sessionIds: readonly string[]): Awaitable<ReadonlyMap<string, number>>;

  saveApproval(row: ChatApprovalRow): Awaitable<void>;
  approval(transactionId: string): Awaitable<ChatApprovalRow | null>;

  /**
   * The running turn's iteration checkpoint (CheckpointHook: its messages and tool results so far),
   * replacing the one before; stored only while that turn runs in the chat (else nothing). It goes when
   * the turn ends (`endTurn`) or the chat is deleted. A restart resumes a running turn from it.
   */
  saveCheckpoint(snapshot: TurnSnapshot): Awaitable<void>;
  /** The latest checkpoint of the turn, if it has one. */
  checkpoint(turnId: string): Awaitable<TurnSnapshot | null>;

  loadMemory(sessionId: string): Awaitable<ChatMessage[]>;
  saveMemory(sessionId: string, messages: readonly ChatMessage[]): Awaitable<void>;
  /**
   * The summary that stands for the chat's older messages in the model's context (memory cleanup), kept
   * beside its messages and deleted with them; null before the first cleanup. `saveSummary` leaves the
   * messages as they are, and `saveMemory` the summary.
   */
  loadSummary(sessionId: string): Awaitable<ContextSummary | null>;
  saveSummary(sessionId: string, summary: ContextSummary): Awaitable<void>;

  /** The agent spans of one turn (the span hooks write them), earliest first: the turn's trace. */
  spans(sessionId: string, turnId: string): Awaitable<SpanRecord[]>;
}

/** The in-memory store: unit tests, and the app without a database. */
export class InMemoryChatStore implements ChatStore {
  private readonly rows = new Map<string, ChatSessionRow>();
  private readonly log: ChatEvent[] = [];
  private readonly approvals = new Map<string, ChatApprovalRow>();
  private readonly checkpoints = new Map<string, TurnSnapshot>();
  private readonly memory = new Map<string, ChatMessage[]>();
  private readonly summaries = new Map<string, ContextSummary>();
  private readonly inputs = new Map<string, ChatInputRow & { state: "waiting" | "started" | "steered" | "dropped"; turnId: string | null }>();
  private seq = 0;

  write<T>(fn: () => T): T {
    return fn();
  }
  afterCommit(fn: () => void): void {
    fn();
  }
  committed(): Promise<void> {
    return Promise.resolve();
  }
  createSession(row: ChatSessionRow): void {
    this.rows.set(row.sessionId, { ...row });
  }
  renameSession(sessionId: string, title: string): ChatSessionRow | null {
    return this.change(sessionId, () => true, { title });
  }
  startTurn({ sessionId, turnId, owner, at, input, title }: TurnStart): ChatSessionRow | null {
    const waiting = input ? this.inputs.get(input) : undefined;
    if (input && waiting?.state !== "waiting") return null;
    const claimed = this.change(sessionId, (r) => r.runningTurn === null, (r) => ({
      runningTurn: turnId,
      turnOwner: owner,
      awaitingApproval: null,
      turns: r.turns + 1,
      updatedAt: Math.max(r.updatedAt, at),
      title: title && r.turns === 0 && r.title === UNTITLED ? title : r.title,
    }));
    if (claimed && waiting) Object.assign(waiting, { state: "started", turnId });
    return claimed;
  }
  suspendTurn(sessionId: string, turnId: string, transactionId: string): ChatSessionRow | null {
    return this.change(sessionId, (r) => r.runningTurn === turnId, { awaitingApproval: transactionId });
  }
  resumeTurn(sessionId: string, turnId: string, owner: string | null): ChatSessionRow | null {
    return this.change(sessionId, (r) => r.runningTurn === turnId, { awaitingApproval: null, turnOwner: owner });
  }
  endTurn(sessionId: string, turnId: string, at: number | null): ChatSessionRow | null {
    this.checkpoints.delete(turnId);
    return this.change(sessionId, (r) => r.runningTurn === turnId, (r) => ({ runningTurn: null, awaitingApproval: null, turnOwner: null, updatedAt: Math.max(r.updatedAt, at ?? r.updatedAt) }));
  }
  deleteSession(sessionId: string): void {
    this.rows.delete(sessionId);
    for (let i = this.log.length - 1; i >= 0; i--) if (this.log[i].sessionId === sessionId) this.log.splice(i, 1);
    for (const [id, a] of this.approvals) if (a.transaction.sessionId === sessionId) this.approvals.delete(id);
    for (const [id, c] of this.checkpoints) if (c.sessionId === sessionId) this.checkpoints.delete(id);
    this.memory.delete(sessionId);
    this.summaries.delete(sessionId);
    for (const [id, i] of this.inputs) if (i.sessionId === sessionId) this.inputs.delete(id);
  }
  session(sessionId: string): ChatSessionRow | null {
    const row = this.rows.get(sessionId);
    return row ? { ...row } : null;
  }
  sessions(query?: string): ChatSessionRow[] {
    const q = query?.trim().toLowerCase();
    const matches = (r: ChatSessionRow) =>
      !q ||
      r.title.toLowerCase().includes(q) ||
      this.log.some((e) => e.sessionId === r.sessionId && e.type === "user_message" && e.text.toLowerCase().includes(q));
    return [...this.rows.values()].filter(matches).sort((a, b) => b.updatedAt - a.updatedAt).map((r) => ({ ...r }));
  }
  appendEvent(event: NewChatEvent): ChatEvent {
    const numbered = { ...event, seq: ++this.seq } as ChatEvent;
    this.log.push(numbered);
    return numbered;
  }
  appendWhileRunning(event: NewChatEvent): ChatEvent | null {
    return this.rows.get(event.sessionId)?.runningTurn === event.turnId ? this.appendEvent(event) : null;
  }
  events(sessionId: string, afterSeq: number, limit = Number.MAX_SAFE_INTEGER): ChatEvent[] {
    return this.log.filter((e) => e.sessionId === sessionId && e.seq > afterSeq).slice(0, limit);
  }
  lastSeq(): number {
    return this.seq;
  }
  addInput(input: ChatInputRow): void {
    this.inputs.set(input.inputId, { ...input, state: "waiting", turnId: null });
  }
  steeredInputs(inputIds: readonly string[], turnId: string): void {
    for (const id of inputIds) {
      const input = this.inputs.get(id);
      if (input?.state === "waiting") Object.assign(input, { state: "steered", turnId });
    }
  }
  dropInput(inputId: string): void {
    const input = this.inputs.get(inputId);
    if (input?.state === "waiting") input.state = "dropped";
  }
  waitingInputs(sessionId: string): ChatInputRow[] {
    const waiting = [...this.inputs.values()].filter((i) => i.sessionId === sessionId && i.state === "waiting");
    return waiting.sort(inputOrder).map(({ inputId, mode, text, at }) => ({ inputId, sessionId, mode, text, at }));
  }
  waitingSessions(idleBefore: number | null): string[] {
    const free = (id: string) => {
      const row = this.rows.get(id);
      return !!row && row.runningTurn === null && (idleBefore === null || row.updatedAt < idleBefore);
    };
    return [...new Set([...this.inputs.values()].filter((i) => i.state === "waiting").map((i) => i.sessionId))].filter(free);
  }
  waitingCounts(sessionIds: readonly string[]): ReadonlyMap<string, number> {
    const wanted = new Set(sessionIds);
    const counts = new Map<string, number>();
    for (const i of this.inputs.values()) if (i.state === "waiting" && wanted.has(i.sessionId)) counts.set(i.sessionId, (counts.get(i.sessionId) ?? 0) + 1);
    return counts;
  }
  saveApproval(row: ChatApprovalRow): void {
    this.approvals.set(row.transaction.id, structuredClone(row));
  }
  approval(transactionId: string): ChatApprovalRow | null {
    const row = this.approvals.get(transactionId);
    return row ? structuredClone(row) : null;
  }
  saveCheckpoint(snapshot: TurnSnapshot): void {
    if (this.rows.get(snapshot.sessionId)?.runningTurn === snapshot.turnId) this.checkpoints.set(snapshot.turnId, structuredClone(snapshot));
  }
  checkpoint(turnId: string): TurnSnapshot | null {
    const row = this.checkpoints.get(turnId);
    return row ? structuredClone(row) : null;
  }
  loadMemory(sessionId: string): ChatMessage[] {
    return structuredClone(this.memory.get(sessionId) ?? []);
  }
  saveMemory(sessionId: string, messages: readonly ChatMessage[]): void {
    this.memory.set(sessionId, structuredClone([...messages]));
  }
  loadSummary(sessionId: string): ContextSummary | null {
    const summary = this.summaries.get(sessionId);
    return summary ? { ...summary } : null;
  }
  saveSummary(sessionId: string, summary: ContextSummary): void {
    this.summaries.set(sessionId, { ...summary });
  }
  spans(): SpanRecord[] {
    return []; // spans go to the database's agent_spans; without one there is no trace to read
  }

  private change(sessionId: string, when: (r: ChatSessionRow) => boolean, patch: Partial<ChatSessionRow> | ((r: ChatSessionRow) => Partial<ChatSessionRow>)): ChatSessionRow | null {
    const row = this.rows.get(sessionId);
    if (!row || !when(row)) return null;
    const next = { ...row, ...(typeof patch === "function" ? patch(row) : patch) };
    if (!next.turnOwner) delete next.turnOwner; // kept only with a running turn, as the PostgreSQL store keeps it
    this.rows.set(sessionId, next);
    return { ...next };
  }
}

/** The order waiting inputs run in (the SQL stores order by `position`, the same rule). */
export function inputOrder(a: ChatInputRow, b: ChatInputRow): number {
  const rank = (m: BusyInputMode) => (m === "INTERRUPT" ? 0 : 1);
  if (rank(a.mode) !== rank(b.mode)) return rank(a.mode) - rank(b.mode);
  const byId = a.inputId.length - b.inputId.length || (a.inputId < b.inputId ? -1 : a.inputId > b.inputId ? 1 : 0);
  return a.mode === "INTERRUPT" ? -byId : byId;
}

/** An input's `position` column: its id, negated for an INTERRUPT (it runs before those already waiting). */
export function inputPosition(input: ChatInputRow): bigint {
  const id = BigInt(input.inputId);
  return input.mode === "INTERRUPT" ? -id : id;
}
