import { mkdirSync } from "node:fs";
import path from "node:path";
import BetterSqlite3, { type Database, type Statement } from "better-sqlite3";
import { migrate, readMigrations } from "./migrate";

export type { Database } from "better-sqlite3";

export interface OpenGraphDatabaseOptions {
  /** Where the migrations live; defaults to `prisma/migrations` under the working directory. */
  migrationsDir?: string;
  /** How long a writer waits for another process's lock before SQLITE_BUSY. */
  busyTimeoutMs?: number;
}

/**
 * Opens (creating if needed) the SQLite file the engine's durable stores write, migrated to the latest
 * schema. WAL with synchronous=NORMAL: a commit survives a process crash (SIGKILL), and only an OS crash
 * or power loss may drop the last commits — never corrupt the file.
 */
export function openGraphDatabase(file: string, options: OpenGraphDatabaseOptions = {}): Database {
  if (file !== ":memory:") mkdirSync(path.dirname(file), { recursive: true });
  const db = new BetterSqlite3(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  migrate(db, readMigrations(options.migrationsDir));
  return db;
}

const cache = new WeakMap<Database, Map<string, Statement>>();

/**
 * The prepared statement for `sql` on `db`, prepared once per connection and shared by every store and
 * coordinator on it. Preparing costs tens of microseconds; the hot path only looks statements up.
 */
export function statement(db: Database, sql: string): Statement {
  let byText = cache.get(db);
  if (!byText) cache.set(db, (byText = new Map()));
  let stmt = byText.get(sql);
  if (!stmt) byText.set(sql, (stmt = db.prepare(sql)));
  return stmt;
}

/** JSON text for a column; `undefined` (which JSON cannot hold) is stored as null. */
export const toJson = (value: unknown): string => JSON.stringify(value) ?? "null";
