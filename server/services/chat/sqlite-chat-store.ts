import { TurnSnapshotSchema, type TurnSnapshot } from "@/server/agent/approval/turn-snapshot";
import { parseSummary, type ContextSummary } from "@/server/agent/memory/context-summary";
import type { ChatMessage } from "@/server/agent/llm/messages";
import type { SpanRecord } from "@/server/agent/trace/span-record";
import { type Database } from "@/server/db/graph-database";
import { statement, toJson } from "@/server/db/sqlite-statements";
import { commitWith, deferWith, onCommitted, whenCommitted } from "@/server/db/deferred-transaction";
import { spanOfRow, type SpanRow } from "@/server/db/sqlite-span-sink";
import type { ChatEvent } from "./chat-event";
import { UNTITLED } from "./chat-title";
import { inputPosition, type ChatApprovalRow, type ChatInputRow, type ChatSessionRow, type ChatStore, type NewChatEvent, type TurnStart } from "./chat-store";

const SESSION_COLUMNS = "session_id, title, agent, turns, running_turn, awaiting_approval, created_at, updated_at";

const SQL = {
  insertSession: `INSERT INTO chat_sessions (${SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  // Each change sets only its own fields, conditioned on the row as it is now (the PostgreSQL store's statements).
  renameSession: `UPDATE chat_sessions SET title = ? WHERE session_id = ? RETURNING ${SESSION_COLUMNS}`,
  // A turn that runs a waiting input claims the chat only while that input still waits.
  startTurn: `UPDATE chat_sessions SET running_turn = @turn, awaiting_approval = NULL, turns = turns + 1, updated_at = max(updated_at, @at),
      title = CASE WHEN @title IS NOT NULL AND turns = 0 AND title = @untitled THEN @title ELSE title END
      WHERE session_id = @session AND running_turn IS NULL
        AND (@input IS NULL OR EXISTS (SELECT 1 FROM chat_inputs WHERE input_id = @input AND state = 'waiting'))
      RETURNING ${SESSION_COLUMNS}`,
  startInput: `UPDATE chat_inputs SET state = 'started', turn_id = ? WHERE input_id = ?`,
  insertInput: `INSERT INTO chat_inputs (input_id, session_id, mode, text, state, position, at) VALUES (?, ?, ?, ?, 'waiting', ?, ?)`,
  steeredInput: `UPDATE chat_inputs SET state = 'steered', turn_id = ? WHERE input_id = ? AND state = 'waiting'`,
  dropInput: `UPDATE chat_inputs SET state = 'dropped' WHERE input_id = ? AND state = 'waiting'`,
  waitingInputs: `SELECT input_id, session_id, mode, text, at FROM chat_inputs WHERE session_id = ? AND state = 'waiting'
      ORDER BY CASE mode WHEN 'INTERRUPT' THEN 0 ELSE 1 END, position`,
  waitingSessions: `SELECT DISTINCT i.session_id FROM chat_inputs i JOIN chat_sessions s ON s.session_id = i.session_id
      WHERE i.state = 'waiting' AND s.running_turn IS NULL AND (? IS NULL OR s.updated_at < ?)`,
  waitingCounts: `SELECT session_id, COUNT(*) AS n FROM chat_inputs WHERE state = 'waiting' AND session_id IN (SELECT value FROM json_each(?)) GROUP BY session_id`,
  deleteInputs: `DELETE FROM chat_inputs WHERE session_id = ?`,
  suspendTurn: `UPDATE chat_sessions SET awaiting_approval = ? WHERE session_id = ? AND running_turn = ? RETURNING ${SESSION_COLUMNS}`,
  resumeTurn: `UPDATE chat_sessions SET awaiting_approval = NULL WHERE session_id = ? AND running_turn = ? RETURNING ${SESSION_COLUMNS}`,
  endTurn: `UPDATE chat_sessions SET running_turn = NULL, awaiting_approval = NULL, updated_at = max(updated_at, coalesce(?, updated_at))
      WHERE session_id = ? AND running_turn = ? RETURNING ${SESSION_COLUMNS}`,
  session: `SELECT ${SESSION_COLUMNS} FROM chat_sessions WHERE session_id = ?`,
  sessions: `SELECT ${SESSION_COLUMNS} FROM chat_sessions ORDER BY updated_at DESC`,
  // LIKE is case-insensitive for ASCII in SQLite; the pattern escapes % and _ with a backslash.
  search: `SELECT ${SESSION_COLUMNS} FROM chat_sessions s WHERE s.title LIKE ? ESCAPE '\\'
    OR EXISTS (SELECT 1 FROM chat_events e WHERE e.session_id = s.session_id AND e.type = 'user_message' AND e.body LIKE ? ESCAPE '\\')
    ORDER BY updated_at DESC`,
  deleteSession: `DELETE FROM chat_sessions WHERE session_id = ?`,
  deleteEvents: `DELETE FROM chat_events WHERE session_id = ?`,
  deleteApprovals: `DELETE FROM chat_approvals WHERE session_id = ?`,
  deleteMemory: `DELETE FROM chat_memory WHERE session_id = ?`,
  // Its turns' traces (agent spans carry the chat's id as their session).
  deleteSpans: `DELETE FROM agent_spans WHERE session_id = ?`,
  // token_budget's total of the chat (its scope is the session id), gone with the chat.
  deleteTokenTotal: `DELETE FROM token_budget_totals WHERE scope = ?`,
  running: `SELECT 1 FROM chat_sessions WHERE session_id = ? AND running_turn = ?`,
  insertEvent: `INSERT INTO chat_events (seq, session_id, turn_id, type, at, body) VALUES (?, ?, ?, ?, ?, ?)`,
  events: `SELECT body FROM chat_events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
  lastSeq: `SELECT coalesce(max(seq), 0) AS seq FROM chat_events`,
  upsertApproval: `INSERT INTO chat_approvals (transaction_id, session_id, turn_id, status, record, snapshot, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT(transaction_id) DO UPDATE SET status = excluded.status, record = excluded.record, snapshot = excluded.snapshot`,
  approval: `SELECT record, snapshot FROM chat_approvals WHERE transaction_id = ?`,
  // A running turn's checkpoint: in agent_turn_snapshots (keyed by turn id, as an agent node's suspended
  // turn), written only while the turn runs, deleted when it ends.
  saveCheckpoint: `INSERT INTO agent_turn_snapshots (turn_id, session_id, snapshot, taken_at)
      SELECT @turn, @session, @snapshot, @at WHERE EXISTS (SELECT 1 FROM chat_sessions WHERE session_id = @session AND running_turn = @turn)
    ON CONFLICT(turn_id) DO UPDATE SET snapshot = excluded.snapshot, taken_at = excluded.taken_at`,
  checkpoint: `SELECT snapshot FROM agent_turn_snapshots WHERE turn_id = ?`,
  deleteCheckpoint: `DELETE FROM agent_turn_snapshots WHERE turn_id = ?`,
  deleteCheckpoints: `DELETE FROM agent_turn_snapshots WHERE session_id = ?`,
  loadMemory: `SELECT messages FROM chat_memory WHERE session_id = ?`,
  spans: `SELECT * FROM agent_spans WHERE session_id = ? AND turn_id = ? ORDER BY start_time, rowid`,
  saveMemory: `INSERT INTO chat_memory (session_id, messages) VALUES (?, ?) ON CONFLICT(session_id) DO UPDATE SET messages = excluded.messages`,
  loadSummary: `SELECT summary FROM chat_memory WHERE session_id = ?`,
  saveSummary: `INSERT INTO chat_memory (session_id, messages, summary) VALUES (?, '[]', ?) ON CONFLICT(session_id) DO UPDATE SET summary = excluded.summary`,
} as const;

interface SessionDbRow {
  session_id: string;
  title: string;
  agent: string | null;
  turns: number;
  running_turn: string | null;
  awaiting_approval: string | null;
  created_at: number | bigint;
  updated_at: number | bigint;
}

const toSession = (r: SessionDbRow): ChatSessionRow => ({
  sessionId: r.session_id,
  title: r.title,
  agent: r.agent,
  turns: Number(r.turns),
  runningTurn: r.running_turn,
  awaitingApproval: r.awaiting_approval,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Chats on the engine's SQLite connection (writes on another connection would wait for a lock only the
 * engine's thread releases while a run's steps are deferred). Streamed events join the group commit
 * (`deferWith`: one commit for many events, at the latest the next macrotask); `write` commits at once.
 */
export class SqliteChatStore implements ChatStore {
  /** The last number given out: the connection is the database's one writer (the data directory's lock). */
  private seq: number;

  constructor(private readonly db: Database) {
    this.seq = Number((statement(db, SQL.lastSeq).get() as { seq: number }).seq);
  }

  write<T>(fn: () => T): T {
    return commitWith(this.db, fn);
  }
  afterCommit(fn: () => void): void {
    onCommitted(this.db, fn);
  }
  committed(): Promise<void> {
    return whenCommitted(this.db);
  }
  createSession(r: ChatSessionRow): void {
    this.deferred(() => statement(this.db, SQL.insertSession).run(r.sessionId, r.title, r.agent, r.turns, r.runningTurn, r.awaitingApproval, r.createdAt, r.updatedAt));
  }
  renameSession(sessionId: string, title: string): ChatSessionRow | null {
    return this.changed(SQL.renameSession, title, sessionId);
  }
  /** `owner` is not kept: one process uses a SQLite database. */
  startTurn({ sessionId, turnId, at, input = null, title = null }: TurnStart): ChatSessionRow | null {
    const claimed = this.changed(SQL.startTurn, { turn: turnId, at, title, untitled: UNTITLED, session: sessionId, input });
    if (claimed && input) this.deferred(() => statement(this.db, SQL.startInput).run(turnId, input));
    return claimed;
  }
  suspendTurn(sessionId: string, turnId: string, transactionId: string): ChatSessionRow | null {
    return this.changed(SQL.suspendTurn, transactionId, sessionId, turnId);
  }
  resumeTurn(sessionId: string, turnId: string): ChatSessionRow | null {
    return this.changed(SQL.resumeTurn, sessionId, turnId);
  }
  endTurn(sessionId: string, turnId: string, at: number | null): ChatSessionRow | null {
    this.deferred(() => statement(this.db, SQL.deleteCheckpoint).run(turnId));
    return this.changed(SQL.endTurn, at, sessionId, turnId);
  }
  deleteSession(sessionId: string): void {
    this.deferred(() => {
      for (const sql of [SQL.deleteEvents, SQL.deleteApprovals, SQL.deleteMemory, SQL.deleteSpans, SQL.deleteTokenTotal, SQL.deleteInputs, SQL.deleteCheckpoints, SQL.deleteSession]) statement(this.db, sql).run(sessionId);
    });
  }
  session(sessionId: string): ChatSessionRow | null {
    const row = statement(this.db, SQL.session).get(sessionId) as SessionDbRow | undefined;
    return row ? toSession(row) : null;
  }
  sessions(query?: string): ChatSessionRow[] {
    const q = query?.trim();
    const rows = q ? statement(this.db, SQL.search).all(likePattern(q), likePattern(q)) : statement(this.db, SQL.sessions).all();
    return (rows as SessionDbRow[]).map(toSession);
  }
  appendEvent(event: NewChatEvent): ChatEvent {
    const e = { ...event, seq: ++this.seq } as ChatEvent;
    this.deferred(() => statement(this.db, SQL.insertEvent).run(e.seq, e.sessionId, e.turnId, e.type, e.at, JSON.stringify(e)));
    return e;
  }
  /** One process writes the database, synchronously: the row read is the row the event is written with. */
  appendWhileRunning(event: NewChatEvent): ChatEvent | null {
    return statement(this.db, SQL.running).get(event.sessionId, event.turnId) ? this.appendEvent(event) : null;
  }
  events(sessionId: string, afterSeq: number, limit = -1): ChatEvent[] {
    return (statement(this.db, SQL.events).all(sessionId, afterSeq, limit) as { body: string }[]).map((r) => JSON.parse(r.body) as ChatEvent);
  }
  /** The last number given out (for any session: the next one of this session is higher). */
  lastSeq(): number {
    return this.seq;
  }
  addInput(i: ChatInputRow): void {
    this.deferred(() => statement(this.db, SQL.insertInput).run(i.inputId, i.sessionId, i.mode, i.text, inputPosition(i), i.at));
  }
  steeredInputs(inputIds: readonly string[], turnId: string): void {
    this.deferred(() => {
      for (const id of inputIds) statement(this.db, SQL.steeredInput).run(turnId, id);
    });
  }
  dropInput(inputId: string): void {
    this.deferred(() => statement(this.db, SQL.dropInput).run(inputId));
  }
  waitingInputs(sessionId: string): ChatInputRow[] {
    const rows = statement(this.db, SQL.waitingInputs).all(sessionId) as { input_id: string; session_id: string; mode: ChatInputRow["mode"]; text: string; at: number | bigint }[];
    return rows.map((r) => ({ inputId: r.input_id, sessionId: r.session_id, mode: r.mode, text: r.text, at: Number(r.at) }));
  }
  waitingSessions(idleBefore: number | null): string[] {
    return (statement(this.db, SQL.waitingSessions).all(idleBefore, idleBefore) as { session_id: string }[]).map((r) => r.session_id);
  }
  waitingCounts(sessionIds: readonly string[]): ReadonlyMap<string, number> {
    const rows = statement(this.db, SQL.waitingCounts).all(JSON.stringify(sessionIds)) as { session_id: string; n: number }[];
    return new Map(rows.map((r) => [r.session_id, Number(r.n)]));
  }
  saveApproval({ transaction: t, snapshot }: ChatApprovalRow): void {
    this.deferred(() =>
      statement(this.db, SQL.upsertApproval).run(t.id, t.sessionId, t.turnId, t.status, JSON.stringify(t), snapshot ? toJson(snapshot) : null, t.createdAt),
    );
  }
  approval(transactionId: string): ChatApprovalRow | null {
    const row = statement(this.db, SQL.approval).get(transactionId) as { record: string; snapshot: string | null } | undefined;
    return row ? { transaction: JSON.parse(row.record), snapshot: row.snapshot ? JSON.parse(row.snapshot) : null } : null;
  }
  saveCheckpoint(snapshot: TurnSnapshot): void {
    const values = { turn: snapshot.turnId, session: snapshot.sessionId, snapshot: toJson(snapshot), at: snapshot.takenAt };
    this.deferred(() => statement(this.db, SQL.saveCheckpoint).run(values));
  }
  checkpoint(turnId: string): TurnSnapshot | null {
    const row = statement(this.db, SQL.checkpoint).get(turnId) as { snapshot: string } | undefined;
    return row ? TurnSnapshotSchema.parse(JSON.parse(row.snapshot)) : null;
  }
  loadMemory(sessionId: string): ChatMessage[] {
    const row = statement(this.db, SQL.loadMemory).get(sessionId) as { messages: string } | undefined;
    return row ? (JSON.parse(row.messages) as ChatMessage[]) : [];
  }
  saveMemory(sessionId: string, messages: readonly ChatMessage[]): void {
    this.deferred(() => statement(this.db, SQL.saveMemory).run(sessionId, JSON.stringify(messages)));
  }

  loadSummary(sessionId: string): ContextSummary | null {
    const row = statement(this.db, SQL.loadSummary).get(sessionId) as { summary: string | null } | undefined;
    return row?.summary ? parseSummary(JSON.parse(row.summary)) : null;
  }
  saveSummary(sessionId: string, summary: ContextSummary): void {
    this.deferred(() => statement(this.db, SQL.saveSummary).run(sessionId, JSON.stringify(summary)));
  }

  spans(sessionId: string, turnId: string): SpanRecord[] {
    return (statement(this.db, SQL.spans).all(sessionId, turnId) as SpanRow[]).map(spanOfRow);
  }

  /** One statement changing a session's row (RETURNING it), written as `deferred` writes: the row it left, or null when it changed none. */
  private changed(sql: string, ...values: unknown[]): ChatSessionRow | null {
    let row: SessionDbRow | undefined;
    this.deferred(() => (row = statement(this.db, sql).get(...values) as SessionDbRow | undefined));
    return row ? toSession(row) : null;
  }

  /** Inside `write` the statement joins that transaction; otherwise it joins the group commit. */
  private deferred(fn: () => void): void {
    if (this.db.inTransaction) fn();
    else deferWith(this.db, fn);
  }
}
