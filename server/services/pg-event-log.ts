import { PgAppDatabase } from "@/server/db/pg/pg-app-database";
import { toJson, toTimestamp, type PgQueryable } from "@/server/db/pg/pg-database";
import type { EngineEvent } from "@/server/graph/events";
import { DEFAULT_EVENT_PAGE, type AppendEventArgs, type EventLog, type ListEventsArgs, type ListVersionArgs, type StoredEvent } from "./event-log";

/**
 * One statement per batch. Rows are inserted in the order of the batch (ORDER BY n), so the sequence
 * hands out their ids in that order: the ids returned, sorted, belong to the batch's rows in order.
 */
const SQL = {
  append: `INSERT INTO engine_events (instance_id, version, type, payload, created_at)
    SELECT i, v, t, p::json, c::timestamptz
      FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS e(i, v, t, p, c, n)
     ORDER BY n
    RETURNING id`,
  list: `SELECT id, instance_id, version, payload, created_at FROM engine_events
    WHERE instance_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
  listVersion: `SELECT id, instance_id, version, payload, created_at FROM engine_events
    WHERE instance_id = $1 AND version = $2 ORDER BY id LIMIT $3 OFFSET $4`,
} as const;

interface EventRow {
  id: string;
  instance_id: string;
  version: number;
  payload: EngineEvent;
  created_at: Date;
}

interface Batch {
  rows: (AppendEventArgs & { at: number })[];
  /** The ids of `rows`, in order, once committed. */
  written: Promise<number[]>;
}

/**
 * The event log on PostgreSQL's `engine_events`, the table the cluster's workers write their runs' events
 * to (server/cluster/event-writer.ts): rows written by either read the same. `append` resolves once its
 * row is committed. Appends made together (one engine step emits several events) are one INSERT, and
 * batches are written one after another, so ids follow the order of the `append` calls and the promises
 * resolve in that order. `whenDurable` runs once every batch before it has been written.
 *
 * Appends commit on their own, never inside a caller's transaction: a batch gathers the appends of
 * several callers, and would otherwise run on a transaction's client that may have ended by then (a
 * PgAppDatabase's batches go through its pool; a command that must commit its event with its state
 * change inserts the row in its own transaction, as ClusterGraphControl does).
 */
export class PgEventLog implements EventLog {
  /** The batch still taking appends: its write starts when the one before it has ended. */
  private open: Batch | null = null;
  /** Settles when the last batch's write has ended (committed or failed). */
  private tail: Promise<void> = Promise.resolve();

  /** Where batches are written: a pool, outside any transaction of the caller's. */
  private readonly writer: PgQueryable;

  constructor(private readonly db: PgQueryable) {
    this.writer = db instanceof PgAppDatabase ? db.pool : db;
  }

  append(args: AppendEventArgs): Promise<StoredEvent> {
    const batch = this.open ?? this.startBatch();
    const at = args.at ?? Date.now();
    const index = batch.rows.push({ ...args, at }) - 1;
    return batch.written.then((ids) => ({ id: ids[index], instanceId: args.instanceId, version: args.version, at, event: args.event }));
  }

  whenDurable(fn: () => void): void {
    void this.tail.then(() => {
      try {
        fn();
      } catch (error) {
        console.error("[modex] an event announcement failed:", error);
      }
    });
  }

  async list(instanceId: string, args: ListEventsArgs = {}): Promise<StoredEvent[]> {
    const { rows } = await this.db.query<EventRow>({ name: "modex_event_log_list", text: SQL.list, values: [instanceId, args.afterId ?? 0, args.limit ?? DEFAULT_EVENT_PAGE] });
    return rows.map(toStored);
  }

  async listVersion(instanceId: string, args: ListVersionArgs): Promise<StoredEvent[]> {
    const { rows } = await this.db.query<EventRow>({
      name: "modex_event_log_version",
      text: SQL.listVersion,
      values: [instanceId, args.version, args.limit, args.offset],
    });
    return rows.map(toStored);
  }

  private startBatch(): Batch {
    const rows: Batch["rows"] = [];
    const written = this.tail.then(() => {
      this.open = null; // appends from now on go to the next batch
      return this.write(rows);
    });
    const batch: Batch = { rows, written };
    this.open = batch;
    this.tail = written.then(
      () => undefined,
      () => undefined,
    );
    return batch;
  }

  private async write(rows: Batch["rows"]): Promise<number[]> {
    const result = await this.writer.query<{ id: string }>({
      name: "modex_event_log_append",
      text: SQL.append,
      values: [
        rows.map((r) => r.instanceId),
        rows.map((r) => r.version),
        rows.map((r) => r.event.type),
        rows.map((r) => toJson(r.event)),
        rows.map((r) => toTimestamp(r.at)),
      ],
    });
    return result.rows.map((r) => Number(r.id)).sort((a, b) => a - b);
  }
}

function toStored(r: EventRow): StoredEvent {
  return { id: Number(r.id), instanceId: r.instance_id, version: r.version, at: r.created_at.getTime(), event: r.payload };
}
