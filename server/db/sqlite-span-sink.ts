import type { Database, Statement } from "better-sqlite3";
import type { SpanRecord, SpanSink, TurnCursor, TurnFilter, TurnRootIndex } from "@/server/agent/trace/span-record";

/** A row of `agent_spans` as SQLite answers it. */
export interface SpanRow {
  span_id: string;
  trace_id: string;
  parent_span_id: string | null;
  name: string;
  kind: SpanRecord["kind"];
  start_time: number;
  end_time: number;
  attributes: string;
  status_code: SpanRecord["status"]["code"];
  status_message: string | null;
  session_id: string;
  turn_id: string;
}

/**
 * Stores finished agent spans in the app database (table `agent_spans`), where the UI reads traces.
 * Writes are synchronous prepared statements: the span hooks treat the sink as fire-and-forget.
 */
/** Root spans (agent_spans_turns_idx) of the chosen source and status; the cursor's page adds its bound. */
const TURN_ROOTS = `SELECT * FROM agent_spans WHERE parent_span_id IS NULL
    AND (@source = 'all' OR (instr(session_id, ':') > 0) = (@source = 'node'))
    AND (@errorsOnly = 0 OR status_code = 'error')
    AND (@trainingOnly = 0 OR json_extract(attributes, '$."gen_ai.training.relevant"') = 1)`;

export class SqliteSpanSink implements SpanSink, TurnRootIndex {
  private readonly insert: Statement;
  private readonly byTrace: Statement<[string]>;
  private readonly bySession: Statement<[string, number]>;
  private readonly firstTurns: Statement;
  private readonly laterTurns: Statement;
  private readonly choose: Statement;
  private readonly root: Statement<[string]>;

  constructor(db: Database) {
    this.insert = db.prepare(
      `INSERT OR REPLACE INTO agent_spans (span_id, trace_id, parent_span_id, name, kind, start_time, end_time,
         attributes, status_code, status_message, session_id, turn_id)
       VALUES (@span_id, @trace_id, @parent_span_id, @name, @kind, @start_time, @end_time,
         @attributes, @status_code, @status_message, @session_id, @turn_id)`,
    );
    this.byTrace = db.prepare(`SELECT * FROM agent_spans WHERE trace_id = ? ORDER BY start_time, rowid`);
    this.bySession = db.prepare(`SELECT * FROM agent_spans WHERE session_id = ? ORDER BY start_time DESC, rowid DESC LIMIT ?`);
    this.firstTurns = db.prepare(`${TURN_ROOTS} ORDER BY start_time DESC, span_id DESC LIMIT @limit`);
    // The choice rewrites only the root's attributes: the root span is written once, when its turn ends.
    this.choose = db.prepare(
      `UPDATE agent_spans SET attributes = json_set(attributes, '$."gen_ai.training.relevant"', json(@included), '$."modex.training.chosen"', json('true'))
       WHERE span_id = @spanId AND parent_span_id IS NULL`,
    );
    this.root = db.prepare(`SELECT * FROM agent_spans WHERE span_id = ? AND parent_span_id IS NULL`);
    this.laterTurns = db.prepare(`${TURN_ROOTS} AND (start_time, span_id) < (@startTime, @spanId) ORDER BY start_time DESC, span_id DESC LIMIT @limit`);
  }

  turnRoots(after: TurnCursor | null, limit: number, filter: TurnFilter): SpanRecord[] {
    const params = { limit, source: filter.source, errorsOnly: filter.errorsOnly ? 1 : 0, trainingOnly: filter.trainingOnly ? 1 : 0 };
    const rows = after ? this.laterTurns.all({ ...params, ...after }) : this.firstTurns.all(params);
    return (rows as SpanRow[]).map(spanOfRow);
  }

  chooseTraining(spanId: string, included: boolean): SpanRecord | null {
    this.choose.run({ spanId, included: included ? "true" : "false" });
    const row = this.root.get(spanId) as SpanRow | undefined;
    return row ? spanOfRow(row) : null;
  }

  write(span: SpanRecord): void {
    this.insert.run(toRow(span));
  }

  /** Every span of one trace, earliest first. */
  trace(traceId: string): SpanRecord[] {
    return (this.byTrace.all(traceId) as SpanRow[]).map(spanOfRow);
  }

  /** The latest spans of a session, newest first. */
  recentForSession(sessionId: string, limit = 200): SpanRecord[] {
    return (this.bySession.all(sessionId, limit) as SpanRow[]).map(spanOfRow);
  }
}

function toRow(span: SpanRecord): SpanRow {
  return {
    span_id: span.spanId,
    trace_id: span.traceId,
    parent_span_id: span.parentSpanId ?? null,
    name: span.name,
    kind: span.kind,
    start_time: span.startTime,
    end_time: span.endTime,
    attributes: JSON.stringify(span.attributes),
    status_code: span.status.code,
    status_message: span.status.message ?? null,
    session_id: span.sessionId,
    turn_id: span.turnId,
  };
}

/** The span a row of `agent_spans` holds (the chat store reads a turn's spans with it too). */
export function spanOfRow(row: SpanRow): SpanRecord {
  return {
    traceId: row.trace_id,
    spanId: row.span_id,
    ...(row.parent_span_id ? { parentSpanId: row.parent_span_id } : {}),
    name: row.name,
    kind: row.kind,
    startTime: Number(row.start_time),
    endTime: Number(row.end_time),
    attributes: JSON.parse(row.attributes) as SpanRecord["attributes"],
    status: { code: row.status_code, ...(row.status_message ? { message: row.status_message } : {}) },
    sessionId: row.session_id,
    turnId: row.turn_id,
  };
}
