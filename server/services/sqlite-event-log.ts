import { type Database } from "@/server/db/graph-database";
import { statement, toJson } from "@/server/db/sqlite-statements";
import { abortDeferred, commitMark, onCommitted } from "@/server/db/deferred-transaction";
import { isStorageError } from "@/server/db/storage-errors";
import type { EngineEvent } from "@/server/graph/events";
import { DEFAULT_EVENT_PAGE, type AppendEventArgs, type EventLog, type ListEventsArgs, type ListVersionArgs, type StoredEvent } from "./event-log";

const SQL = {
  insert: `INSERT INTO engine_events (instance_id, version, type, payload, created_at) VALUES (?, ?, ?, ?, ?)`,
  list: `SELECT id, instance_id, version, payload, created_at FROM engine_events
    WHERE instance_id = ? AND id > ? ORDER BY id LIMIT ?`,
  listVersion: `SELECT id, instance_id, version, payload, created_at FROM engine_events
    WHERE instance_id = ? AND version = ? ORDER BY id LIMIT ? OFFSET ?`,
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
 * An event emitted during a node's lifecycle joins the engine's deferred group commit
 * (graph-database.ts) instead of forcing a commit of its own; `whenDurable` defers the announcement
 * until that commit, so nothing is published that a crash or a rollback could still take back.
 */
export class SqliteEventLog implements EventLog {
  constructor(private readonly db: Database) {}

  append(args: AppendEventArgs): StoredEvent {
    const at = args.at ?? Date.now();
    let info;
    try {
      info = statement(this.db, SQL.insert).run(args.instanceId, args.version, args.event.type, toJson(args.event), at);
    } catch (error) {
      // The step this event describes is in the open transaction: committed without its event, the
      // timeline would lie. Both go, and the runs on the connection recover from the last commit.
      if (isStorageError(error) && commitMark(this.db) !== 0) abortDeferred(this.db, error);
      throw error;
    }
    return { id: Number(info.lastInsertRowid), instanceId: args.instanceId, version: args.version, at, event: args.event };
  }

  whenDurable(fn: () => void): void {
    onCommitted(this.db, fn);
  }

  list(instanceId: string, args: ListEventsArgs = {}): StoredEvent[] {
    const rows = statement(this.db, SQL.list).all(instanceId, args.afterId ?? 0, args.limit ?? DEFAULT_EVENT_PAGE) as EventRow[];
    return rows.map(toStored);
  }

  listVersion(instanceId: string, args: ListVersionArgs): StoredEvent[] {
    const rows = statement(this.db, SQL.listVersion).all(instanceId, args.version, args.limit, args.offset) as EventRow[];
    return rows.map(toStored);
  }
}

function toStored(r: EventRow): StoredEvent {
  return { id: r.id, instanceId: r.instance_id, version: r.version, at: r.created_at, event: JSON.parse(r.payload) as EngineEvent };
}
