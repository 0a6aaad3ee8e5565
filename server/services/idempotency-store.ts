import { type Database } from "@/server/db/graph-database";
import { statement } from "@/server/db/sqlite-statements";
import { commitWith } from "@/server/db/deferred-transaction";
import type { Awaitable } from "@/server/graph/awaitable";

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

/** The reference of a key reserved before its work ran (see `IdempotencyStore.claimsWithWork`). */
export const RESERVED_REFERENCE = "";

/** A duplicate key: another request claimed it first (SQLite's primary key, or a store's own check). */
export class IdempotencyKeyTakenError extends Error {
  readonly code = "IDEMPOTENCY_KEY_TAKEN";
  constructor(scope: string, key: string) {
    super(`idempotency key ${key} (${scope}) exists`);
  }
}

/** True for the error a `put` of a key that exists throws, whichever store threw it. */
export const isKeyTaken = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "IDEMPOTENCY_KEY_TAKEN";
};

/**
 * Idempotency-Keys. In-memory and SQLite answer synchronously, PostgreSQL with promises; every write is
 * committed when it has answered (except `put` on SQLite, which joins the caller's transaction).
 */
export interface IdempotencyStore {
  /**
   * True when `put` joins the transaction the work writes in (SQLite on the engine's connection): a
   * duplicate's work rolls back with its key. False (PostgreSQL, whose work commits elsewhere): the
   * service reserves the key before the work runs, so two processes never both run it.
   */
  readonly claimsWithWork: boolean;
  get(scope: string, key: string): Awaitable<IdempotencyRecord | null>;
  /** Inserts the key's row (a duplicate key throws an error `isKeyTaken` knows: someone got there first). */
  put(row: Pick<IdempotencyRecord, "scope" | "key" | "fingerprint" | "reference">): Awaitable<void>;
  /** Names what the work of a reserved key made (it had RESERVED_REFERENCE until then). */
  refer(scope: string, key: string, reference: string): Awaitable<void>;
  complete(scope: string, key: string, status: number, response: unknown): Awaitable<void>;
  /** Removes the key's row; `createdAt`: only the row made then (not one another request made since). */
  remove(scope: string, key: string, createdAt?: number): Awaitable<void>;
  /** Forgets keys older than `before` (epoch ms); returns how many. */
  prune(before: number): Awaitable<number>;
}

const SQL = {
  get: `SELECT scope, key, fingerprint, reference, status, response, created_at FROM idempotency_keys WHERE scope = ? AND key = ?`,
  put: `INSERT INTO idempotency_keys (scope, key, fingerprint, reference, created_at) VALUES (?, ?, ?, ?, ?)`,
  refer: `UPDATE idempotency_keys SET reference = ? WHERE scope = ? AND key = ?`,
  complete: `UPDATE idempotency_keys SET status = ?, response = ? WHERE scope = ? AND key = ?`,
  remove: `DELETE FROM idempotency_keys WHERE scope = ? AND key = ?`,
  removeIf: `DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND created_at = ?`,
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
  readonly claimsWithWork = true;
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

  refer(scope: string, key: string, reference: string): void {
    commitWith(this.db, () => statement(this.db, SQL.refer).run(reference, scope, key), { oneWrite: true });
  }

  complete(scope: string, key: string, status: number, response: unknown): void {
    commitWith(this.db, () => statement(this.db, SQL.complete).run(status, JSON.stringify(response) ?? "null", scope, key), { oneWrite: true });
  }

  remove(scope: string, key: string, createdAt?: number): void {
    commitWith(
      this.db,
      () => (createdAt === undefined ? statement(this.db, SQL.remove).run(scope, key) : statement(this.db, SQL.removeIf).run(scope, key, createdAt)),
      { oneWrite: true },
    );
  }

  prune(before: number): number {
    return commitWith(this.db, () => statement(this.db, SQL.prune).run(before).changes, { oneWrite: true });
  }
}

export class InMemoryIdempotencyStore implements IdempotencyStore {
  private readonly rows = new Map<string, IdempotencyRecord>();

  /** `claimsWithWork: false` makes it behave as a store of another process would (reserve first). */
  constructor(readonly claimsWithWork = true) {}

  get(scope: string, key: string): IdempotencyRecord | null {
    return this.rows.get(`${scope}\n${key}`) ?? null;
  }

  put(row: Pick<IdempotencyRecord, "scope" | "key" | "fingerprint" | "reference">): void {
    const id = `${row.scope}\n${row.key}`;
    if (this.rows.has(id)) throw new IdempotencyKeyTakenError(row.scope, row.key);
    this.rows.set(id, { ...row, status: null, response: null, createdAt: Date.now() });
  }

  refer(scope: string, key: string, reference: string): void {
    const row = this.get(scope, key);
    if (row) row.reference = reference;
  }

  complete(scope: string, key: string, status: number, response: unknown): void {
    const row = this.get(scope, key);
    if (row) Object.assign(row, { status, response });
  }

  remove(scope: string, key: string, createdAt?: number): void {
    if (createdAt !== undefined && this.get(scope, key)?.createdAt !== createdAt) return;
    this.rows.delete(`${scope}\n${key}`);
  }

  prune(before: number): number {
    let n = 0;
    for (const [id, row] of this.rows) if (row.createdAt < before && this.rows.delete(id)) n++;
    return n;
  }
}
