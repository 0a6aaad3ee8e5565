import { commitWith, statement, type Database } from "@/server/db/graph-database";

/** One Idempotency-Key: what its first request made, and the answer once known. */
export interface IdempotencyRecord {
  scope: string;
  key: string;
  fingerprint: string;
  reference: string;
  status: number | null;
  response: unknown;
  createdAt: number;
}

export interface IdempotencyStore {
  get(scope: string, key: string): IdempotencyRecord | null;
  /** Inserts the key's row in the caller's transaction (a duplicate key throws: someone got there first). */
  put(row: Pick<IdempotencyRecord, "scope" | "key" | "fingerprint" | "reference">): void;
  complete(scope: string, key: string, status: number, response: unknown): void;
  remove(scope: string, key: string): void;
  /** Forgets keys older than `before` (epoch ms); returns how many. */
  prune(before: number): number;
}

const SQL = {
  get: `SELECT scope, key, fingerprint, reference, status, response, created_at FROM idempotency_keys WHERE scope = ? AND key = ?`,
  put: `INSERT INTO idempotency_keys (scope, key, fingerprint, reference, created_at) VALUES (?, ?, ?, ?, ?)`,
  complete: `UPDATE idempotency_keys SET status = ?, response = ? WHERE scope = ? AND key = ?`,
  remove: `DELETE FROM idempotency_keys WHERE scope = ? AND key = ?`,
  prune: `DELETE FROM idempotency_keys WHERE created_at < ?`,
} as const;

interface Row {
  scope: string;
  key: string;
  fingerprint: string;
  reference: string;
  status: number | null;
  response: string | null;
  created_at: number;
}

/** On the engine's connection: `put` joins whatever transaction the work it names is written in. */
export class SqliteIdempotencyStore implements IdempotencyStore {
  constructor(private readonly db: Database) {}

  get(scope: string, key: string): IdempotencyRecord | null {
    const row = statement(this.db, SQL.get).get(scope, key) as Row | undefined;
    if (!row) return null;
    return {
      scope: row.scope,
      key: row.key,
      fingerprint: row.fingerprint,
      reference: row.reference,
      status: row.status,
      response: row.response === null ? null : JSON.parse(row.response),
      createdAt: row.created_at,
    };
  }

  put(row: Pick<IdempotencyRecord, "scope" | "key" | "fingerprint" | "reference">): void {
    statement(this.db, SQL.put).run(row.scope, row.key, row.fingerprint, row.reference, Date.now());
  }

  complete(scope: string, key: string, status: number, response: unknown): void {
    commitWith(this.db, () => statement(this.db, SQL.complete).run(status, JSON.stringify(response) ?? "null", scope, key), { oneWrite: true });
  }

  remove(scope: string, key: string): void {
    commitWith(this.db, () => statement(this.db, SQL.remove).run(scope, key), { oneWrite: true });
  }

  prune(before: number): number {
    return commitWith(this.db, () => statement(this.db, SQL.prune).run(before).changes, { oneWrite: true });
  }
}

export class InMemoryIdempotencyStore implements IdempotencyStore {
  private readonly rows = new Map<string, IdempotencyRecord>();

  get(scope: string, key: string): IdempotencyRecord | null {
    return this.rows.get(`${scope}\n${key}`) ?? null;
  }

  put(row: Pick<IdempotencyRecord, "scope" | "key" | "fingerprint" | "reference">): void {
    const id = `${row.scope}\n${row.key}`;
    if (this.rows.has(id)) throw Object.assign(new Error(`idempotency key ${row.key} exists`), { code: "SQLITE_CONSTRAINT_PRIMARYKEY" });
    this.rows.set(id, { ...row, status: null, response: null, createdAt: Date.now() });
  }

  complete(scope: string, key: string, status: number, response: unknown): void {
    const row = this.get(scope, key);
    if (row) Object.assign(row, { status, response });
  }

  remove(scope: string, key: string): void {
    this.rows.delete(`${scope}\n${key}`);
  }

  prune(before: number): number {
    let n = 0;
    for (const [id, row] of this.rows) if (row.createdAt < before && this.rows.delete(id)) n++;
    return n;
  }
}
