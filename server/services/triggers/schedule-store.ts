import { type Database } from "@/server/db/graph-database";
import { statement } from "@/server/db/sqlite-statements";
import { commitWith } from "@/server/db/deferred-transaction";
import type { Awaitable } from "@/server/graph/awaitable";
import type { MISSED_POLICIES, OVERLAP_POLICIES } from "@/server/graph/spec/schedule-spec";

export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];
export type MissedPolicy = (typeof MISSED_POLICIES)[number];

export interface ScheduleRecord {
  name: string;
  /** The spec's name (its latest revision runs). */
  spec: string;
  cron: string;
  timezone: string;
  input: unknown;
  overlap: OverlapPolicy;
  missed: MissedPolicy;
  paused: boolean;
  /** The spec whose `schedules:` declares it; null when made in the app. */
  declaredIn: string | null;
  /** The due fire not yet handled (ms); null while paused or when the expression never fires again. */
  nextFireAt: number | null;
  lastFireAt: number | null;
  /** "started", "skipped: …", "cancelled <id> and started", "failed: …". */
  lastOutcome: string | null;
  lastInstanceId: string | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * Every write commits before it answers: a schedule the API reported is on disk. In-memory and SQLite
 * answer synchronously, PostgreSQL with promises.
 */
export interface ScheduleStore {
  list(): Awaitable<ScheduleRecord[]>;
  get(name: string): Awaitable<ScheduleRecord | null>;
  put(record: ScheduleRecord): Awaitable<void>;
  remove(name: string): Awaitable<boolean>;
}

const COLUMNS =
  "name, spec, cron, timezone, input, overlap, missed, paused, declared_in, next_fire_at, last_fire_at, last_outcome, last_instance_id, created_at, updated_at";

const SQL = {
  list: `SELECT ${COLUMNS} FROM trigger_schedules ORDER BY name`,
  get: `SELECT ${COLUMNS} FROM trigger_schedules WHERE name = ?`,
  put: `INSERT OR REPLACE INTO trigger_schedules (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  remove: `DELETE FROM trigger_schedules WHERE name = ?`,
} as const;

interface Row {
  name: string;
  spec: string;
  cron: string;
  timezone: string;
  input: string;
  overlap: string;
  missed: string;
  paused: number;
  declared_in: string | null;
  next_fire_at: number | null;
  last_fire_at: number | null;
  last_outcome: string | null;
  last_instance_id: string | null;
  created_at: number;
  updated_at: number;
}

const num = (v: number | null): number | null => (v === null ? null : Number(v));

const toRecord = (r: Row): ScheduleRecord => ({
  name: r.name,
  spec: r.spec,
  cron: r.cron,
  timezone: r.timezone,
  input: JSON.parse(r.input),
  overlap: r.overlap as OverlapPolicy,
  missed: r.missed as MissedPolicy,
  paused: Boolean(r.paused),
  declaredIn: r.declared_in,
  nextFireAt: num(r.next_fire_at),
  lastFireAt: num(r.last_fire_at),
  lastOutcome: r.last_outcome,
  lastInstanceId: r.last_instance_id,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

/** Schedules in `trigger_schedules`, on the engine's connection (commitWith: never inside a run's deferred steps). */
export class SqliteScheduleStore implements ScheduleStore {
  constructor(private readonly db: Database) {}

  list(): ScheduleRecord[] {
    return (statement(this.db, SQL.list).all() as Row[]).map(toRecord);
  }
  get(name: string): ScheduleRecord | null {
    const row = statement(this.db, SQL.get).get(name) as Row | undefined;
    return row ? toRecord(row) : null;
  }
  put(r: ScheduleRecord): void {
    const values = [
      r.name, r.spec, r.cron, r.timezone, JSON.stringify(r.input ?? null), r.overlap, r.missed, r.paused ? 1 : 0, r.declaredIn,
      r.nextFireAt, r.lastFireAt, r.lastOutcome, r.lastInstanceId, r.createdAt, r.updatedAt,
    ];
    commitWith(this.db, () => statement(this.db, SQL.put).run(...values), { oneWrite: true });
  }
  remove(name: string): boolean {
    return commitWith(this.db, () => statement(this.db, SQL.remove).run(name).changes > 0, { oneWrite: true });
  }
}

export class InMemoryScheduleStore implements ScheduleStore {
  private readonly rows = new Map<string, ScheduleRecord>();
  list(): ScheduleRecord[] {
    return [...this.rows.values()].sort((a, b) => a.name.localeCompare(b.name)).map((r) => ({ ...r }));
  }
  get(name: string): ScheduleRecord | null {
    const r = this.rows.get(name);
    return r ? { ...r } : null;
  }
  put(record: ScheduleRecord): void {
    this.rows.set(record.name, { ...record });
  }
  remove(name: string): boolean {
    return this.rows.delete(name);
  }
}
