import { commitDeferred, statement, toJson, type Database } from "@/server/db/graph-database";
import type { EngineEvent } from "@/server/graph/events";
import { DEFAULT_EVENT_PAGE, type EventLog, type ListEventsArgs, type StoredEvent } from "./event-log";

const SQL = {
  insert: `INSERT INTO engine_events (instance_id, version, type, payload, created_at) VALUES (?, ?, ?, ?, ?)`,
  list: `SELECT id, instance_id, version, payload, created_at FROM engine_events
    WHERE instance_id = ? AND id > ? ORDER BY id LIMIT ?`,
} as const;

interface EventRow {
  id: number;
  instance_id: string;
  version: number;
  payload: string;
  created_at: number;
}

/**
 * The event log on the `engine_events` table (prepared statements: one insert per engine event).
 * `append` first commits the engine's deferred group-commit steps (graph-database.ts), then inserts in
 * its own autocommit: when it returns, the event and the state it describes are durable, so the
 * recorder may announce it. (Joining the deferred transaction instead would announce rows a later
 * rollback could still take back.)
 */
export class SqliteEventLog implements EventLog {
  constructor(private readonly db: Database) {}

  append(args: { instanceId: string; version: number; event: EngineEvent; at?: number }): StoredEvent {
    const at = args.at ?? Date.now();
    commitDeferred(this.db);
    const info = statement(this.db, SQL.insert).run(args.instanceId, args.version, args.event.type, toJson(args.event), at);
    return { id: Number(info.lastInsertRowid), instanceId: args.instanceId, version: args.version, at, event: args.event };
  }

  list(instanceId: string, args: ListEventsArgs = {}): StoredEvent[] {
    const rows = statement(this.db, SQL.list).all(instanceId, args.afterId ?? 0, args.limit ?? DEFAULT_EVENT_PAGE) as EventRow[];
    return rows.map((r) => ({
      id: r.id,
      instanceId: r.instance_id,
      version: r.version,
      at: r.created_at,
      event: JSON.parse(r.payload) as EngineEvent,
    }));
  }
}
