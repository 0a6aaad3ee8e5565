import type { ApprovalTransaction } from "@/server/agent/approval/approval-types";
import type { TurnSnapshot } from "@/server/agent/approval/turn-snapshot";
import type { ChatMessage } from "@/server/agent/llm/messages";
import type { SpanRecord } from "@/server/agent/trace/span-record";
import type { ChatEvent } from "./chat-event";

export interface ChatSessionRow {
  sessionId: string;
  title: string;
  agent: string | null;
  turns: number;
  /** The turn in progress, suspended ones included. */
  runningTurn: string | null;
  /** The approval the running turn waits on. */
  awaitingApproval: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface ChatApprovalRow {
  transaction: ApprovalTransaction;
  /** The suspended turn (kept while it waits; the turn resumes from it). */
  snapshot: TurnSnapshot | null;
}

/**
 * Where chats live. Two kinds of write: `appendEvent` and `saveMemory` ride the connection's group commit
 * (a turn streams many events; `afterCommit` tells when they are durable), while `write` runs what a
 * caller acknowledges as one transaction, committed when it returns. All calls are synchronous.
 */
export interface ChatStore {
  /** Runs `fn` (calls of this store) as one transaction, committed when it returns. */
  write<T>(fn: () => T): T;
  /** Runs `fn` once everything written so far is committed (now, when nothing waits). */
  afterCommit(fn: () => void): void;
  /** Resolves once everything written so far is committed; rejects when it was lost. */
  committed(): Promise<void>;

  saveSession(row: ChatSessionRow): void;
  deleteSession(sessionId: string): void;
  session(sessionId: string): ChatSessionRow | null;
  /** Most recently updated first; `query` matches the title or any message the user sent (case-insensitive). */
  sessions(query?: string): ChatSessionRow[];

  appendEvent(event: ChatEvent): void;
  events(sessionId: string, afterSeq: number, limit?: number): ChatEvent[];
  /** The highest sequence number stored (0 for none). */
  lastSeq(): number;

  saveApproval(row: ChatApprovalRow): void;
  approval(transactionId: string): ChatApprovalRow | null;

  loadMemory(sessionId: string): ChatMessage[];
  saveMemory(sessionId: string, messages: readonly ChatMessage[]): void;

  /** The agent spans of one turn (the span hooks write them), earliest first: the turn's trace. */
  spans(sessionId: string, turnId: string): SpanRecord[];
}

/** The in-memory store: unit tests, and the app without a database. */
export class InMemoryChatStore implements ChatStore {
  private readonly rows = new Map<string, ChatSessionRow>();
  private readonly log: ChatEvent[] = [];
  private readonly approvals = new Map<string, ChatApprovalRow>();
  private readonly memory = new Map<string, ChatMessage[]>();

  write<T>(fn: () => T): T {
    return fn();
  }
  afterCommit(fn: () => void): void {
    fn();
  }
  committed(): Promise<void> {
    return Promise.resolve();
  }
  saveSession(row: ChatSessionRow): void {
    this.rows.set(row.sessionId, { ...row });
  }
  deleteSession(sessionId: string): void {
    this.rows.delete(sessionId);
    for (let i = this.log.length - 1; i >= 0; i--) if (this.log[i].sessionId === sessionId) this.log.splice(i, 1);
    for (const [id, a] of this.approvals) if (a.transaction.sessionId === sessionId) this.approvals.delete(id);
    this.memory.delete(sessionId);
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
  appendEvent(event: ChatEvent): void {
    this.log.push(event);
  }
  events(sessionId: string, afterSeq: number, limit = Number.MAX_SAFE_INTEGER): ChatEvent[] {
    return this.log.filter((e) => e.sessionId === sessionId && e.seq > afterSeq).slice(0, limit);
  }
  lastSeq(): number {
    return this.log.at(-1)?.seq ?? 0;
  }
  saveApproval(row: ChatApprovalRow): void {
    this.approvals.set(row.transaction.id, structuredClone(row));
  }
  approval(transactionId: string): ChatApprovalRow | null {
    const row = this.approvals.get(transactionId);
    return row ? structuredClone(row) : null;
  }
  loadMemory(sessionId: string): ChatMessage[] {
    return structuredClone(this.memory.get(sessionId) ?? []);
  }
  saveMemory(sessionId: string, messages: readonly ChatMessage[]): void {
    this.memory.set(sessionId, structuredClone([...messages]));
  }
  spans(): SpanRecord[] {
    return []; // spans go to the database's agent_spans; without one there is no trace to read
  }
}
