import { fromTimestamp, toTimestamp, type PgQueryable } from "@/server/db/pg/pg-database";
import type { HookAuthMode, HookRecord, HookStore } from "./hook-store";

const COLUMNS = "name, spec, auth, secret, max_body_bytes, rate_per_minute, created_at, rotated_at";

const SQL = {
  list: `SELECT ${COLUMNS} FROM trigger_hooks ORDER BY name COLLATE "C"`,
  get: `SELECT ${COLUMNS} FROM trigger_hooks WHERE name = $1`,
  create: `INSERT INTO trigger_hooks (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7::timestamptz, $8::timestamptz)
    ON CONFLICT (name) DO NOTHING`,
  put: `INSERT INTO trigger_hooks (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7::timestamptz, $8::timestamptz)
    ON CONFLICT (name) DO UPDATE SET spec = excluded.spec, auth = excluded.auth, secret = excluded.secret,
      max_body_bytes = excluded.max_body_bytes, rate_per_minute = excluded.rate_per_minute,
      created_at = excluded.created_at, rotated_at = excluded.rotated_at`,
  remove: `DELETE FROM trigger_hooks WHERE name = $1`,
} as const;

const q = (name: keyof typeof SQL, values: unknown[]) => ({ name: `modex_hook_${name}`, text: SQL[name], values });

interface Row {
  name: string;
  spec: string;
  auth: string;
  secret: string;
  max_body_bytes: number;
  rate_per_minute: number;
  created_at: Date;
  rotated_at: Date;
}

const toRecord = (r: Row): HookRecord => ({
  name: r.name,
  spec: r.spec,
  auth: r.auth as HookAuthMode,
  secret: r.secret,
  maxBodyBytes: r.max_body_bytes,
  ratePerMinute: r.rate_per_minute,
  createdAt: fromTimestamp(r.created_at)!,
  rotatedAt: fromTimestamp(r.rotated_at)!,
});

const values = (r: HookRecord) => [r.name, r.spec, r.auth, r.secret, r.maxBodyBytes, r.ratePerMinute, toTimestamp(r.createdAt), toTimestamp(r.rotatedAt)];

/** Webhooks in PostgreSQL's `trigger_hooks`, shared by every web process (a put replaces the row, as on SQLite). */
export class PgHookStore implements HookStore {
  constructor(private readonly db: PgQueryable) {}

  async list(): Promise<HookRecord[]> {
    return (await this.db.query<Row>(q("list", []))).rows.map(toRecord);
  }

  async get(name: string): Promise<HookRecord | null> {
    const row = (await this.db.query<Row>(q("get", [name]))).rows[0];
    return row ? toRecord(row) : null;
  }

  /** ON CONFLICT on the primary key: of creates at once, from any processes, one inserts. */
  async create(r: HookRecord): Promise<boolean> {
    return ((await this.db.query(q("create", values(r)))).rowCount ?? 0) > 0;
  }

  async put(r: HookRecord): Promise<void> {
    await this.db.query(q("put", values(r)));
  }

  async remove(name: string): Promise<boolean> {
    return ((await this.db.query(q("remove", [name]))).rowCount ?? 0) > 0;
  }
}
