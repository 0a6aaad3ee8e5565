import type { QueryResultRow } from "pg";
import { TurnSnapshotSchema, type TurnSnapshot } from "@/server/agent/approval/turn-snapshot";
import { parseSummary, type ContextSummary } from "@/server/agent/memory/context-summary";
import type { ChatMessage } from "@/server/agent/llm/messages";
import type { SpanRecord } from "@/server/agent/trace/span-record";
import { PgGroupCommit, type PgStatement, type PgWriteUnit } from "@/server/db/pg/pg-group-commit";
import { toJson, type PgQueryable } from "@/server/db/pg/pg-database";
import { PG_SPAN_COLUMNS, spanOfPgRow, type PgSpanRow } from "@/server/db/pg-span-sink";
import type { ChatEvent } from "./chat-event";
import { UNTITLED } from "./chat-title";
import { inputPosition, type ChatApprovalRow, type ChatInputRow, type ChatSessionRow, type ChatStore, type NewChatEvent, type TurnStart } from "./chat-store";

const SESSION_COLUMNS = "session_id, title, agent, turns, running_turn, awaiting_approval, created_at, updated_at, running_owner";

const SQL = {
  insertSession: `INSERT INTO chat_sessions (${SESSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
  // Each change sets only its own fields, conditioned on the row as it is now, not as a process last read it.
  renameSession: `UPDATE chat_sessions SET title = $2 WHERE session_id = $1 RETURNING ${SESSION_COLUMNS}`,
  // A turn that runs a waiting input ($5) claims the chat only while that input still waits, and marks it
  // started in the same statement: two processes starting it at once claim the chat's row one after the
  // other, and the second finds the chat running; a later one finds the input started.
  startTurn: `WITH claimed AS (
      UPDATE chat_sessions SET running_turn = $2, running_owner = $3, awaiting_approval = NULL, turns = turns + 1, updated_at = greatest(updated_at, $4),
        title = CASE WHEN $6::text IS NOT NULL AND turns = 0 AND title = $7 THEN $6 ELSE title END
      WHERE session_id = $1 AND running_turn IS NULL
        AND ($5::text IS NULL OR EXISTS (SELECT 1 FROM chat_inputs WHERE input_id = $5 AND state = 'waiting'))
      RETURNING ${SESSION_COLUMNS}),
    started AS (UPDATE chat_inputs SET state = 'started', turn_id = $2 WHERE input_id = $5 AND EXISTS (SELECT 1 FROM claimed))
    SELECT * FROM claimed`,
  insertInput: `INSERT INTO chat_inputs (input_id, session_id, mode, text, state, position, at) VALUES ($1, $2, $3, $4, 'waiting', $5, $6)`,
  steeredInputs: `UPDATE chat_inputs SET state = 'steered', turn_id = $2 WHERE input_id = ANY($1::text[]) AND state = 'waiting'`,
  dropInput: `UPDATE chat_inputs SET state = 'dropped' WHERE input_id = $1 AND state = 'waiting'`,
  waitingInputs: `SELECT input_id, session_id, mode, text, at FROM chat_inputs WHERE session_id = $1 AND state = 'waiting'
      ORDER BY CASE mode WHEN 'INTERRUPT' THEN 0 ELSE 1 END, position`,
  waitingSessions: `SELECT DISTINCT i.session_id FROM chat_inputs i JOIN chat_sessions s ON s.session_id = i.session_id
      WHERE i.state = 'waiting' AND s.running_turn IS NULL AND ($1::bigint IS NULL OR s.updated_at < $1)`,
  waitingCounts: `SELECT session_id, COUNT(*)::int AS n FROM chat_inputs WHERE session_id = ANY($1::text[]) AND state = 'waiting' GROUP BY session_id`,
  deleteInputs: `DELETE FROM chat_inputs WHERE session_id = $1`,
  suspendTurn: `UPDATE chat_sessions SET awaiting_approval = $3 WHERE session_id = $1 AND running_turn = $2 RETURNING ${SESSION_COLUMNS}`,
  resumeTurn: `UPDATE chat_sessions SET awaiting_approval = NULL, running_owner = $3 WHERE session_id = $1 AND running_turn = $2 RETURNING ${SESSION_COLUMNS}`,
  endTurn: `UPDATE chat_sessions SET running_turn = NULL, awaiting_approval = NULL, running_owner = NULL, updated_at = greatest(updated_at, coalesce($3, updated_at))
      WHERE session_id = $1 AND running_turn = $2 RETURNING ${SESSION_COLUMNS}`,
  session: `SELECT ${SESSION_COLUMNS} FROM chat_sessions WHERE session_id = $1`,
  sessions: `SELECT ${SESSION_COLUMNS} FROM chat_sessions ORDER BY updated_at DESC`,
  // The pattern escapes %, _ and \ with a backslash; ILIKE is case-insensitive.
  search: `SELECT ${SESSION_COLUMNS} FROM chat_sessions s WHERE s.title ILIKE $1 ESCAPE '\\'
    OR EXISTS (SELECT 1 FROM chat_events e WHERE e.session_id = s.session_id AND e.type = 'user_message' AND (e.body ->> 'text') ILIKE $1 ESCAPE '\\')
    ORDER BY updated_at DESC`,
  deleteEvents: `DELETE FROM chat_events WHERE session_id = $1`,
  deleteApprovals: `DELETE FROM chat_approvals WHERE session_id = $1`,
  deleteMemory: `DELETE FROM chat_memory WHERE session_id = $1`,
  // Its turns' traces (agent spans carry the chat's id as their session).
  deleteSpans: `DELETE FROM agent_spans WHERE session_id = $1`,
  // token_budget's total of the chat (its scope is the session id), gone with the chat.
  deleteTokenTotal: `DELETE FROM token_budget_totals WHERE scope = $1`,
  deleteSession: `DELETE FROM chat_sessions WHERE session_id = $1`,
  // `seq` is the column's default (one sequence for every process); the body is stored without it.
  insertEvent: `INSERT INTO chat_events (session_id, turn_id, type, at, body) VALUES ($1, $2, $3, $4, $5) RETURNING seq`,
  // Only while the turn runs; FOR UPDATE holds the row to the commit (an endTurn after it ends that turn).
  insertWhileRunning: `INSERT INTO chat_events (session_id, turn_id, type, at, body)
    SELECT $1::text, $2::text, $3::text, $4::bigint, $5::json FROM chat_sessions WHERE session_id = $1 AND running_turn = $2 FOR UPDATE RETURNING seq`,
  events: `SELECT seq, body FROM chat_events WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
  lastSeq: `SELECT coalesce(max(seq), 0) AS seq FROM chat_events WHERE session_id = $1`,
  upsertApproval: `INSERT INTO chat_approvals (transaction_id, session_id, turn_id, status, record, snapshot, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT (transaction_id) DO UPDATE SET status = excluded.status, record = excluded.record, snapshot = excluded.snapshot`,
  approval: `SELECT record, snapshot FROM chat_approvals WHERE transaction_id = $1`,
  // A running turn's checkpoint: in agent_turn_snapshots (keyed by turn id, as an agent node's suspended
  // turn), written only while the turn runs, deleted when it ends.
  saveCheckpoint: `INSERT INTO agent_turn_snapshots (turn_id, session_id, snapshot, taken_at)
      SELECT $1, $2, $3::json, to_timestamp($4::double precision / 1000) WHERE EXISTS (SELECT 1 FROM chat_sessions WHERE session_id = $2 AND running_turn = $1)
    ON CONFLICT (turn_id) DO UPDATE SET snapshot = excluded.snapshot, taken_at = excluded.taken_at`,
  checkpoint: `SELECT snapshot FROM agent_turn_snapshots WHERE turn_id = $1`,
  deleteCheckpoint: `DELETE FROM agent_turn_snapshots WHERE turn_id = $1`,
  deleteCheckpoints: `DELETE FROM agent_turn_snapshots WHERE session_id = $1`,
  loadMemory: `SELECT messages FROM chat_memory WHERE session_id = $1`,
  saveMemory: `INSERT INTO chat_memory (session_id, messages) VALUES ($1, $2) ON CONFLICT (session_id) DO UPDATE SET messages = excluded.messages`,
  loadSummary: `SELECT summary FROM chat_memory WHERE session_id = $1`,
  saveSummary: `INSERT INTO chat_memory (session_id, messages, summary) VALUES ($1, '[]', $2) ON CONFLICT (session_id) DO UPDATE SET summary = excluded.summary`,
  spans: `SELECT ${PG_SPAN_COLUMNS} FROM agent_spans WHERE session_id = $1 AND turn_id = $2 ORDER BY start_time, written`,
} as const;

interface SessionDbRow {
  session_id: string;
  title: string;
  agent: string | null;
  turns: number;
  running_turn: string | null;
  awaiting_approval: string | null;
  created_at: string;
  updated_at: string;
  running_owner: string | null;
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
  ...(r.running_owner ? { turnOwner: r.running_owner } : {}),
});

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The advisory-lock key under which a session's events are numbered and committed (see PgGroupCommit). */
const eventsLock = (sessionId: string) => `chat_events:${sessionId}`;

/**
 * Chats in PostgreSQL. Writes go through one group commit per store (PgGroupCommit): in the order they
 * were made, a batch per transaction, each write's promise resolving once committed; `write(fn)` sends
 * the writes `fn` makes as one unit. Reads wait for the writes made before them.
 *
 * Event numbers come from the table's sequence, taken inside the transaction that holds the session's
 * advisory lock: whichever process appends to a session, its events commit in the order of their
 * numbers, so a reader that saw `seq` n never later finds a smaller one of that session appear.
 */
export class PgChatStore implements ChatStore {
  private readonly commits: PgGroupCommit;
  /** The unit `write(fn)` is collecting, while `fn` runs. */
  private open: { unit: PgWriteUnit; done: Promise<unknown[]> } | null = null;

  constructor(private readonly db: PgQueryable) {
    this.commits = new PgGroupCommit(db);
  }

  write<T>(fn: () => T): Promise<T> {
    if (this.open) return Promise.resolve(fn()); // nested: joins the unit being collected
    let submit!: (values: Promise<unknown[]>) => void;
    const unit: PgWriteUnit = { statements: [], locks: [] };
    const done = new Promise<unknown[]>((resolve) => (submit = resolve));
    this.open = { unit, done };
    let result: T;
    try {
      result = fn();
    } catch (error) {
      submit(Promise.reject(error));
      done.catch(() => {}); // the caller has the throw; writes made in `fn` reject with it
      throw error;
    } finally {
      this.open = null;
    }
    submit(this.commits.submit(unit));
    return done.then(() => result);
  }

  afterCommit(fn: () => void): void {
    this.commits.committed().then(fn, () => {});
  }

  committed(): Promise<void> {
    return this.commits.committed();
  }

  createSession(r: ChatSessionRow): Promise<void> {
    return this.written([(db) => db.query({ text: SQL.insertSession, values: [r.sessionId, r.title, r.agent, r.turns, r.runningTurn, r.awaitingApproval, r.createdAt, r.updatedAt, r.runningTurn ? (r.turnOwner ?? null) : null] })]);
  }

  renameSession(sessionId: string, title: string): Promise<ChatSessionRow | null> {
    return this.changed(SQL.renameSession, [sessionId, title]);
  }

  startTurn({ sessionId, turnId, owner, at, input = null, title = null }: TurnStart): Promise<ChatSessionRow | null> {
    return this.changed(SQL.startTurn, [sessionId, turnId, owner, at, input, title, UNTITLED]);
  }

  suspendTurn(sessionId: string, turnId: string, transactionId: string): Promise<ChatSessionRow | null> {
    return this.changed(SQL.suspendTurn, [sessionId, turnId, transactionId]);
  }

  resumeTurn(sessionId: string, turnId: string, owner: string | null): Promise<ChatSessionRow | null> {
    return this.changed(SQL.resumeTurn, [sessionId, turnId, owner]);
  }

  endTurn(sessionId: string, turnId: string, at: number | null): Promise<ChatSessionRow | null> {
    // The turn's checkpoint goes with its end, in the same transaction.
    const drop: PgStatement = (db) => db.query({ text: SQL.deleteCheckpoint, values: [turnId] });
    return this.changed(SQL.endTurn, [sessionId, turnId, at], [drop]);
  }

  deleteSession(sessionId: string): Promise<void> {
    const statements = [SQL.deleteEvents, SQL.deleteApprovals, SQL.deleteMemory, SQL.deleteSpans, SQL.deleteTokenTotal, SQL.deleteInputs, SQL.deleteCheckpoints, SQL.deleteSession].map((text): PgStatement => (db) => db.query({ text, values: [sessionId] }));
    return this.written(statements, [eventsLock(sessionId)]);
  }

  async session(sessionId: string): Promise<ChatSessionRow | null> {
    const { rows } = await this.read<SessionDbRow>(SQL.session, [sessionId]);
    return rows[0] ? toSession(rows[0]) : null;
  }

  async sessions(query?: string): Promise<ChatSessionRow[]> {
    const q = query?.trim();
    const { rows } = q ? await this.read<SessionDbRow>(SQL.search, [likePattern(q)]) : await this.read<SessionDbRow>(SQL.sessions, []);
    return rows.map(toSession);
  }

  appendEvent(event: NewChatEvent): Promise<ChatEvent> {
    const insert: PgStatement = (db) => db.query({ text: SQL.insertEvent, values: [event.sessionId, event.turnId, event.type, event.at, toJson(event)] });
    return this.written([insert], [eventsLock(event.sessionId)], ([result]) => ({ ...event, seq: Number((result as { rows: { seq: string }[] }).rows[0].seq) }) as ChatEvent);
  }

  appendWhileRunning(event: NewChatEvent): Promise<ChatEvent | null> {
    const insert: PgStatement = (db) => db.query({ text: SQL.insertWhileRunning, values: [event.sessionId, event.turnId, event.type, event.at, toJson(event)] });
    return this.written([insert], [eventsLock(event.sessionId)], ([result]) => {
      const row = (result as { rows: { seq: string }[] }).rows[0];
      return row ? ({ ...event, seq: Number(row.seq) } as ChatEvent) : null;
    });
  }

  async events(sessionId: string, afterSeq: number, limit?: number): Promise<ChatEvent[]> {
    const { rows } = await this.read<{ seq: string; body: NewChatEvent }>(SQL.events, [sessionId, afterSeq, limit ?? null]);
    return rows.map((r) => ({ ...r.body, seq: Number(r.seq) }) as ChatEvent);
  }

  async lastSeq(sessionId: string): Promise<number> {
    const { rows } = await this.read<{ seq: string }>(SQL.lastSeq, [sessionId]);
    return Number(rows[0].seq);
  }

  addInput(i: ChatInputRow): Promise<void> {
    return this.written([(db) => db.query({ text: SQL.insertInput, values: [i.inputId, i.sessionId, i.mode, i.text, String(inputPosition(i)), i.at] })]);
  }

  steeredInputs(inputIds: readonly string[], turnId: string): Promise<void> {
    return this.written([(db) => db.query({ text: SQL.steeredInputs, values: [[...inputIds], turnId] })]);
  }

  dropInput(inputId: string): Promise<void> {
    return this.written([(db) => db.query({ text: SQL.dropInput, values: [inputId] })]);
  }

  async waitingInputs(sessionId: string): Promise<ChatInputRow[]> {
    const { rows } = await this.read<{ input_id: string; session_id: string; mode: ChatInputRow["mode"]; text: string; at: string }>(SQL.waitingInputs, [sessionId]);
    return rows.map((r) => ({ inputId: r.input_id, sessionId: r.session_id, mode: r.mode, text: r.text, at: Number(r.at) }));
  }

  async waitingSessions(idleBefore: number | null): Promise<string[]> {
    const { rows } = await this.read<{ session_id: string }>(SQL.waitingSessions, [idleBefore]);
    return rows.map((r) => r.session_id);
  }

  async waitingCounts(sessionIds: readonly string[]): Promise<ReadonlyMap<string, number>> {
    if (sessionIds.length === 0) return new Map();
    const { rows } = await this.read<{ session_id: string; n: number }>(SQL.waitingCounts, [[...sessionIds]]);
    return new Map(rows.map((r) => [r.session_id, r.n]));
  }

  saveApproval({ transaction: t, snapshot }: ChatApprovalRow): Promise<void> {
    return this.written([(db) => db.query({ text: SQL.upsertApproval, values: [t.id, t.sessionId, t.turnId, t.status, toJson(t), snapshot ? toJson(snapshot) : null, t.createdAt] })]);
  }

  async approval(transactionId: string): Promise<ChatApprovalRow | null> {
    const { rows } = await this.read<{ record: ChatApprovalRow["transaction"]; snapshot: ChatApprovalRow["snapshot"] }>(SQL.approval, [transactionId]);
    return rows[0] ? { transaction: rows[0].record, snapshot: rows[0].snapshot ?? null } : null;
  }

  saveCheckpoint(snapshot: TurnSnapshot): Promise<void> {
    return this.written([(db) => db.query({ text: SQL.saveCheckpoint, values: [snapshot.turnId, snapshot.sessionId, toJson(snapshot), snapshot.takenAt] })]);
  }

  async checkpoint(turnId: string): Promise<TurnSnapshot | null> {
    const { rows } = await this.read<{ snapshot: unknown }>(SQL.checkpoint, [turnId]);
    return rows[0] ? TurnSnapshotSchema.parse(rows[0].snapshot) : null;
  }

  async loadMemory(sessionId: string): Promise<ChatMessage[]> {
    const { rows } = await this.read<{ messages: ChatMessage[] }>(SQL.loadMemory, [sessionId]);
    return rows[0]?.messages ?? [];
  }

  saveMemory(sessionId: string, messages: readonly ChatMessage[]): Promise<void> {
    return this.written([(db) => db.query({ text: SQL.saveMemory, values: [sessionId, toJson(messages)] })]);
  }

  async loadSummary(sessionId: string): Promise<ContextSummary | null> {
    const { rows } = await this.read<{ summary: unknown }>(SQL.loadSummary, [sessionId]);
    return rows[0]?.summary ? parseSummary(rows[0].summary) : null;
  }

  saveSummary(sessionId: string, summary: ContextSummary): Promise<void> {
    return this.written([(db) => db.query({ text: SQL.saveSummary, values: [sessionId, toJson(summary)] })]);
  }

  async spans(sessionId: string, turnId: string): Promise<SpanRecord[]> {
    const { rows } = await this.read<PgSpanRow>(SQL.spans, [sessionId, turnId]);
    return rows.map(spanOfPgRow);
  }

  /**
   * Adds the statements to the unit `write` collects, or commits them as a unit of their own; answers
   * (`answer` of their values) once committed. In a unit, a failure is reported once, by the promise of
   * `write`: the writes' own promises are marked handled.
   */
  private written<T = void>(statements: PgStatement[], locks: string[] = [], answer: (values: unknown[]) => T = () => undefined as T): Promise<T> {
    const open = this.open;
    if (!open) return this.commits.submit({ statements, locks }).then(answer);
    const first = open.unit.statements.length;
    open.unit.statements.push(...statements);
    open.unit.locks.push(...locks);
    const result = open.done.then((all) => answer(all.slice(first, first + statements.length)));
    result.catch(() => {});
    return result;
  }

  /** One statement changing a session's row (RETURNING it), written as `written` writes: the row it left, or null when it changed none. */
  private changed(text: string, values: unknown[], after: PgStatement[] = []): Promise<ChatSessionRow | null> {
    return this.written([(db) => db.query({ text, values }), ...after], [], ([result]) => {
      const row = (result as { rows: SessionDbRow[] }).rows[0];
      return row ? toSession(row) : null;
    });
  }

  /** A read after every write made before it (they may still be on their way). */
  private async read<R extends object>(text: string, values: unknown[]) {
    await this.commits.settled();
    return this.db.query<R & QueryResultRow>({ text, values });
  }
}
