import type { Database, Statement } from "better-sqlite3";

const cache = new WeakMap<Database, Map<string, Statement>>();
const rawCache = new WeakMap<Database, Map<string, Statement>>();
const pluckCache = new WeakMap<Database, Map<string, Statement>>();

function cached(caches: WeakMap<Database, Map<string, Statement>>, db: Database, sql: string, make: () => Statement): Statement {
  let byText = caches.get(db);
  if (!byText) caches.set(db, (byText = new Map()));
  let stmt = byText.get(sql);
  if (!stmt) byText.set(sql, (stmt = make()));
  return stmt;
}

/**
 * The prepared statement for `sql` on `db`, prepared once per connection and shared by every store and
 * coordinator on it. Preparing costs tens of microseconds; the hot path only looks statements up.
 */
export function statement(db: Database, sql: string): Statement {
  return cached(cache, db, sql, () => db.prepare(sql));
}

/**
 * The same, answering rows as arrays of column values: better-sqlite3 builds a row object property by
 * property, interning each column name (~0.5 µs a column here), where an array costs a fraction.
 */
export function rawStatement(db: Database, sql: string): Statement {
  return cached(rawCache, db, sql, () => db.prepare(sql).raw(true));
}

/** The same, answering the first column's value alone: no row object or array at all. */
export function pluckStatement(db: Database, sql: string): Statement {
  return cached(pluckCache, db, sql, () => db.prepare(sql).pluck(true));
}

/**
 * A number SQLite changes whenever another connection commits to the database (this connection's own
 * commits leave it): equal answers mean nobody else wrote in between. Read inside a write transaction,
 * it is the value as of that transaction, which no other writer can commit during.
 */
export function dataVersion(db: Database): number {
  return pluckStatement(db, "PRAGMA data_version").get() as number;
}

/** JSON text for a column; `undefined` (which JSON cannot hold) is stored as null. */
export const toJson = (value: unknown): string => JSON.stringify(value) ?? "null";
