import type { SpanRecord, SpanSink, TurnCursor, TurnFilter, TurnRootIndex } from "@/server/agent/trace/span-record";
import { fromTimestamp, toJson, toTimestamp, type PgQueryable } from "./pg/pg-database";

/** A row of `agent_spans` as `pg` reads it. */
export interface PgSpanRow {
  span_id: string;
  trace_id: string;
  parent_span_id: string | null;
  name: string;
  kind: SpanRecord["kind"];
  start_time: Date;
  end_time: Date;
  attributes: SpanRecord["attributes"];
  status_code: SpanRecord["status"]["code"];
  status_message: string | null;
  session_id: string;
  turn_id: string;
}

export const PG_SPAN_COLUMNS = "span_id, trace_id, parent_span_id, name, kind, start_time, end_time, attributes, status_code, status_message, session_id, turn_id";

const SQL = {
  // A span written again (a retried sink call) replaces the row, as SQLite's INSERT OR REPLACE does.
  upsert: `INSERT INTO agent_spans (${PG_SPAN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
    ON CONFLICT (span_id) DO UPDATE SET trace_id = excluded.trace_id, parent_span_id = excluded.parent_span_id, name = excluded.name,
      kind = excluded.kind, start_time = excluded.start_time, end_time = excluded.end_time, attributes = excluded.attributes,
      status_code = excluded.status_code, status_message = excluded.status_message, session_id = excluded.session_id, turn_id = excluded.turn_id`,
  byTrace: `SELECT ${PG_SPAN_COLUMNS} FROM agent_spans WHERE trace_id = $1 ORDER BY start_time, written`,
  bySession: `SELECT ${PG_SPAN_COLUMNS} FROM agent_spans WHERE session_id = $1 ORDER BY start_time DESC, written DESC LIMIT $2`,
  // Root spans (agent_spans_turns_idx) of the chosen source and status, after the cursor when there is one.
  turnRoots: `SELECT ${PG_SPAN_COLUMNS} FROM agent_spans WHERE parent_span_id IS NULL
    AND ($2::text = 'all' OR (strpos(session_id, ':') > 0) = ($2::text = 'node'))
    AND (NOT $3::boolean OR status_code = 'error')
    AND ($4::timestamptz IS NULL OR (start_time, span_id) < ($4::timestamptz, $5::text))
    AND (NOT $6::boolean OR attributes->>'gen_ai.training.relevant' = 'true')
    ORDER BY start_time DESC, span_id DESC LIMIT $1`,
  // The choice rewrites only the root's attributes: the root span is written once, when its turn ends.
  choose: `UPDATE agent_spans SET attributes = (attributes::jsonb || jsonb_build_object('gen_ai.training.relevant', $2::boolean, 'modex.training.chosen', true))::json
    WHERE span_id = $1 AND parent_span_id IS NULL RETURNING ${PG_SPAN_COLUMNS}`,
} as const;

/**
 * Finished agent spans in PostgreSQL (table `agent_spans`), where the UI reads traces. A write resolves
 * once the span is committed; the span hooks do not wait for it (a failure is logged there).
 */
export class PgSpanSink implements SpanSink, TurnRootIndex {
  constructor(private readonly db: PgQueryable) {}

  async write(s: SpanRecord): Promise<void> {
    await this.db.query({
      text: SQL.upsert,
      values: [s.spanId, s.traceId, s.parentSpanId ?? null, s.name, s.kind, toTimestamp(s.startTime), toTimestamp(s.endTime), toJson(s.attributes), s.status.code, s.status.message ?? null, s.sessionId, s.turnId],
    });
  }

  /** Every span of one trace, earliest first. */
  async trace(traceId: string): Promise<SpanRecord[]> {
    const { rows } = await this.db.query<PgSpanRow>({ text: SQL.byTrace, values: [traceId] });
    return rows.map(spanOfPgRow);
  }

  async turnRoots(after: TurnCursor | null, limit: number, filter: TurnFilter): Promise<SpanRecord[]> {
    const values = [limit, filter.source, filter.errorsOnly, after ? toTimestamp(after.startTime) : null, after?.spanId ?? null, filter.trainingOnly ?? false];
    const { rows } = await this.db.query<PgSpanRow>({ text: SQL.turnRoots, values });
    return rows.map(spanOfPgRow);
  }

  async chooseTraining(spanId: string, included: boolean): Promise<SpanRecord | null> {
    const { rows } = await this.db.query<PgSpanRow>({ text: SQL.choose, values: [spanId, included] });
    return rows[0] ? spanOfPgRow(rows[0]) : null;
  }

  /** The latest spans of a session, newest first. */
  async recentForSession(sessionId: string, limit = 200): Promise<SpanRecord[]> {
    const { rows } = await this.db.query<PgSpanRow>({ text: SQL.bySession, values: [sessionId, limit] });
    return rows.map(spanOfPgRow);
  }
}

export function spanOfPgRow(row: PgSpanRow): SpanRecord {
  return {
    traceId: row.trace_id,
    spanId: row.span_id,
    ...(row.parent_span_id ? { parentSpanId: row.parent_span_id } : {}),
    name: row.name,
    kind: row.kind,
    startTime: fromTimestamp(row.start_time)!,
    endTime: fromTimestamp(row.end_time)!,
    attributes: row.attributes,
    status: { code: row.status_code, ...(row.status_message ? { message: row.status_message } : {}) },
    sessionId: row.session_id,
    turnId: row.turn_id,
  };
}
