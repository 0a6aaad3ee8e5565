import { fromTimestamp, toJson, toTimestamp, type PgQueryable } from "@/server/db/pg/pg-database";
import type { MissedPolicy, OverlapPolicy, ScheduleRecord, ScheduleStore } from "./schedule-store";

const COLUMNS =
  "name, spec, cron, timezone, input, overlap, missed, paused, declared_in, next_fire_at, last_fire_at, last_outcome, last_instance_id, created_at, updated_at";

const SQL = {
  list: `SELECT ${COLUMNS} FROM trigger_schedules ORDER BY name COLLATE "C"`,
  get: `SELECT ${COLUMNS} FROM trigger_schedules WHERE name = $1`,
  put: `INSERT INTO trigger_schedules (${COLUMNS})
    VALUES ($1, $2, $3, $4, $5::json, $6, $7, $8, $9, $10::timestamptz, $11::timestamptz, $12, $13, $14::timestamptz, $15::timestamptz)
    ON CONFLICT (name) DO UPDATE SET spec = excluded.spec, cron = excluded.cron, timezone = excluded.timezone,
      input = excluded.input, overlap = excluded.overlap, missed = excluded.missed, paused = excluded.paused,
      declared_in = excluded.declared_in, next_fire_at = excluded.next_fire_at, last_fire_at = excluded.last_fire_at,
      last_outcome = excluded.last_outcome, last_instance_id = excluded.last_instance_id,
      created_at = excluded.created_at, updated_at = excluded.updated_at`,
  remove: `DELETE FROM trigger_schedules WHERE name = $1`,
} as const;

const q = (name: keyof typeof SQL, values: unknown[]) => ({ name: `modex_schedule_${name}`, text: SQL[name], values });

interface Row {
  name: string;
  spec: string;
  cron: string;
  timezone: string;
  input: unknown;
  overlap: string;
  missed: string;
  paused: boolean;
  declared_in: string | null;
  next_fire_at: Date | null;
  last_fire_at: Date | null;
  last_outcome: string | null;
  last_instance_id: string | null;
  created_at: Date;
  updated_at: Date;
}

const toRecord = (r: Row): ScheduleRecord => ({
  name: r.name,
  spec: r.spec,
  cron: r.cron,
  timezone: r.timezone,
  input: r.input,
  overlap: r.overlap as OverlapPolicy,
  missed: r.missed as MissedPolicy,
  paused: r.paused,
  declaredIn: r.declared_in,
  nextFireAt: fromTimestamp(r.next_fire_at),
  lastFireAt: fromTimestamp(r.last_fire_at),
  lastOutcome: r.last_outcome,
  lastInstanceId: r.last_instance_id,
  createdAt: fromTimestamp(r.created_at)!,
  updatedAt: fromTimestamp(r.updated_at)!,
});

const stamp = (ms: number | null): string | null => (ms === null ? null : toTimestamp(ms));

/**
 * Schedules in PostgreSQL's `trigger_schedules`, shared by every web process on the database (the
 * SQLite store's table and semantics: a put replaces the whole row). Names sort by code point, as
 * SQLite's BINARY collation does.
 */
export class PgScheduleStore implements ScheduleStore {
  constructor(private readonly db: PgQueryable) {}

  async list(): Promise<ScheduleRecord[]> {
    return (await this.db.query<Row>(q("list", []))).rows.map(toRecord);
  }

  async get(name: string): Promise<ScheduleRecord | null> {
    const row = (await this.db.query<Row>(q("get", [name]))).rows[0];
    return row ? toRecord(row) : null;
  }

  async put(r: ScheduleRecord): Promise<void> {
    await this.db.query(
      q("put", [
        r.name, r.spec, r.cron, r.timezone, toJson(r.input ?? null), r.overlap, r.missed, r.paused, r.declaredIn,
        stamp(r.nextFireAt), stamp(r.lastFireAt), r.lastOutcome, r.lastInstanceId, toTimestamp(r.createdAt), toTimestamp(r.updatedAt),
      ]),
    );
  }

  async remove(name: string): Promise<boolean> {
    return ((await this.db.query(q("remove", [name]))).rowCount ?? 0) > 0;
  }
}
