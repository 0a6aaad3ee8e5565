import { fromTimestamp, toJson, toTimestamp, type PgQueryable } from "@/server/db/pg/pg-database";
import { IdempotencyKeyTakenError, type IdempotencyRecord, type IdempotencyStore } from "./idempotency-store";

const COLUMNS = "scope, key, fingerprint, reference, status, response, created_at";

const SQL = {
  get: `SELECT ${COLUMNS} FROM idempotency_keys WHERE scope = $1 AND key = $2`,
  // The primary key lets one request in; the loser learns it from the empty RETURNING, not an error.
  put: `INSERT INTO idempotency_keys (scope, key, fingerprint, reference, created_at)
    VALUES ($1, $2, $3, $4, $5::timestamptz) ON CONFLICT (scope, key) DO NOTHING RETURNING key`,
  refer: `UPDATE idempotency_keys SET reference = $3 WHERE scope = $1 AND key = $2`,
  complete: `UPDATE idempotency_keys SET status = $3, response = $4::json WHERE scope = $1 AND key = $2`,
  remove: `DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2`,
  removeMadeAt: `DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND created_at = $3::timestamptz`,
  prune: `DELETE FROM idempotency_keys WHERE created_at < $1::timestamptz`,
} as const;

const q = (name: keyof typeof SQL, values: unknown[]) => ({ name: `modex_idempotency_${name}`, text: SQL[name], values });

interface Row {
  scope: string;
  key: string;
  fingerprint: string;
  reference: string;
  status: number | null;
  response: unknown;
  created_at: Date;
}

/**
 * Idempotency-Keys in PostgreSQL, shared by every web process on the database. Its writes commit apart
 * from the work they stand for (`claimsWithWork: false`): IdempotencyService reserves a key before the
 * work runs, and the primary key decides which of two processes receiving it at once runs the work.
 */
export class PgIdempotencyStore implements IdempotencyStore {
  readonly claimsWithWork = false;

  constructor(private readonly db: PgQueryable) {}

  async get(scope: string, key: string): Promise<IdempotencyRecord | null> {
    const { rows } = await this.db.query<Row>(q("get", [scope, key]));
    const row = rows[0];
    if (!row) return null;
    return {
      scope: row.scope,
      key: row.key,
      fingerprint: row.fingerprint,
      reference: row.reference,
      status: row.status,
      response: row.response,
      createdAt: fromTimestamp(row.created_at)!,
    };
  }

  async put(row: Pick<IdempotencyRecord, "scope" | "key" | "fingerprint" | "reference">): Promise<void> {
    const { rowCount } = await this.db.query(q("put", [row.scope, row.key, row.fingerprint, row.reference, toTimestamp(Date.now())]));
    if (rowCount === 0) throw new IdempotencyKeyTakenError(row.scope, row.key);
  }

  async refer(scope: string, key: string, reference: string): Promise<void> {
    await this.db.query(q("refer", [scope, key, reference]));
  }

  async complete(scope: string, key: string, status: number, response: unknown): Promise<void> {
    await this.db.query(q("complete", [scope, key, status, toJson(response)]));
  }

  async remove(scope: string, key: string, createdAt?: number): Promise<void> {
    if (createdAt === undefined) await this.db.query(q("remove", [scope, key]));
    else await this.db.query(q("removeMadeAt", [scope, key, toTimestamp(createdAt)]));
  }

  async prune(before: number): Promise<number> {
    const { rowCount } = await this.db.query(q("prune", [toTimestamp(before)]));
    return rowCount ?? 0;
  }
}
