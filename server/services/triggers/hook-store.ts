import { type Database } from "@/server/db/graph-database";
import { statement } from "@/server/db/sqlite-statements";
import { commitWith } from "@/server/db/deferred-transaction";
import type { Awaitable } from "@/server/graph/awaitable";

export const HOOK_AUTH_MODES = ["hmac", "bearer"] as const;
export type HookAuthMode = (typeof HOOK_AUTH_MODES)[number];

export interface HookRecord {
  name: string;
  /** The spec's name (its latest revision runs). */
  spec: string;
  auth: HookAuthMode;
  secret: string;
  maxBodyBytes: number;
  ratePerMinute: number;
  createdAt: number;
  rotatedAt: number;
}

/** Every write commits before it answers (in-memory and SQLite synchronously, PostgreSQL with promises). */
export interface HookStore {
  list(): Awaitable<HookRecord[]>;
  get(name: string): Awaitable<HookRecord | null>;
  /**
   * Adds a hook unless one of that name exists: false then, and the existing one is left as it is.
   * Decided by the store's key, so of creates sent at once from several processes exactly one is true.
   */
  create(record: HookRecord): Awaitable<boolean>;
  /** Writes the hook, replacing one of that name (a rotated secret). */
  put(record: HookRecord): Awaitable<void>;
  remove(name: string): Awaitable<boolean>;
}

const COLUMNS = "name, spec, auth, secret, max_body_bytes, rate_per_minute, created_at, rotated_at";
const SQL = {
  list: `SELECT ${COLUMNS} FROM trigger_hooks ORDER BY name`,
  get: `SELECT ${COLUMNS} FROM trigger_hooks WHERE name = ?`,
  create: `INSERT INTO trigger_hooks (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`,
  put: `INSERT OR REPLACE INTO trigger_hooks (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  remove: `DELETE FROM trigger_hooks WHERE name = ?`,
} as const;

interface Row {
  name: string;
  spec: string;
  auth: string;
  secret: string;
  max_body_bytes: number;
  rate_per_minute: number;
  created_at: number;
  rotated_at: number;
}

const toRecord = (r: Row): HookRecord => ({
  name: r.name,
  spec: r.spec,
  auth: r.auth as HookAuthMode,
  secret: r.secret,
  maxBodyBytes: Number(r.max_body_bytes),
  ratePerMinute: Number(r.rate_per_minute),
  createdAt: Number(r.created_at),
  rotatedAt: Number(r.rotated_at),
});

const values = (r: HookRecord) => [r.name, r.spec, r.auth, r.secret, r.maxBodyBytes, r.ratePerMinute, r.createdAt, r.rotatedAt];

export class SqliteHookStore implements HookStore {
  constructor(private readonly db: Database) {}
  list(): HookRecord[] {
    return (statement(this.db, SQL.list).all() as Row[]).map(toRecord);
  }
  get(name: string): HookRecord | null {
    const row = statement(this.db, SQL.get).get(name) as Row | undefined;
    return row ? toRecord(row) : null;
  }
  create(r: HookRecord): boolean {
    return commitWith(this.db, () => statement(this.db, SQL.create).run(...values(r)).changes > 0, { oneWrite: true });
  }
  put(r: HookRecord): void {
    commitWith(this.db, () => statement(this.db, SQL.put).run(...values(r)), { oneWrite: true });
  }
  remove(name: string): boolean {
    return commitWith(this.db, () => statement(this.db, SQL.remove).run(name).changes > 0, { oneWrite: true });
  }
}

export class InMemoryHookStore implements HookStore {
  private readonly rows = new Map<string, HookRecord>();
  list(): HookRecord[] {
    return [...this.rows.values()].sort((a, b) => a.name.localeCompare(b.name)).map((r) => ({ ...r }));
  }
  get(name: string): HookRecord | null {
    const r = this.rows.get(name);
    return r ? { ...r } : null;
  }
  create(record: HookRecord): boolean {
    if (this.rows.has(record.name)) return false;
    this.rows.set(record.name, { ...record });
    return true;
  }
  put(record: HookRecord): void {
    this.rows.set(record.name, { ...record });
  }
  remove(name: string): boolean {
    return this.rows.delete(name);
  }
}
