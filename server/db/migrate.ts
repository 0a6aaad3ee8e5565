import { createHash, randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import BetterSqlite3, { type Database } from "better-sqlite3";

/**
 * Applies the SQL migrations in `prisma/migrations/<timestamp>_<name>/migration.sql` in name order.
 *
 * `prisma migrate` cannot run on these machines (it needs a schema-engine binary), so this runner does
 * the one thing start-up needs. It keeps Prisma's own `_prisma_migrations` bookkeeping (same table, same
 * sha256 checksum of the file) so the database stays readable by Prisma's tooling later.
 *
 * Contract: each migration runs in its own transaction and is recorded in it, so a failed migration
 * leaves no trace; a migration that was applied and then edited is refused, never re-run.
 */

export const DEFAULT_MIGRATIONS_DIR = path.join(process.cwd(), "prisma", "migrations");

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(migrationsDir: string = DEFAULT_MIGRATIONS_DIR): Migration[] {
  // turbopackIgnore: the folder is read at run time from the working directory (the app runs from the
  // repository root); without the hint Turbopack traces the whole project into the server output.
  return readdirSync(/*turbopackIgnore: true*/ migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(/*turbopackIgnore: true*/ path.join(migrationsDir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

// Prisma's own definition of its bookkeeping table on SQLite.
const BOOKKEEPING_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`;

/** Applies pending migrations; returns the names of those it applied (empty when up to date). */
export function migrate(db: Database, migrations: Migration[] = readMigrations()): string[] {
  db.exec(BOOKKEEPING_TABLE);
  const applied = new Map(
    db
      .prepare(
        `SELECT migration_name AS name, checksum FROM "_prisma_migrations"
         WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
      )
      .all()
      .map((row) => {
        const { name, checksum } = row as { name: string; checksum: string };
        return [name, checksum] as const;
      }),
  );
  const record = db.prepare(
    `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count)
     VALUES (?, ?, ?, ?, 1)`,
  );

  const newlyApplied: string[] = [];
  for (const migration of migrations) {
    const checksum = applied.get(migration.name);
    if (checksum !== undefined) {
      if (checksum !== migration.checksum) {
        throw new Error(`Migration ${migration.name} was edited after it was applied; add a new migration instead.`);
      }
      continue;
    }
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(randomUUID(), migration.checksum, migration.name, new Date().toISOString());
    })();
    newlyApplied.push(migration.name);
  }
  return newlyApplied;
}

/**
 * Start-up step: creates the database file (and its folder) if needed, switches it to WAL, and applies
 * pending migrations. Runs once per server process, before the first request (see instrumentation.ts).
 */
export function prepareDatabaseFile(file: string, migrationsDir?: string): string[] {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new BetterSqlite3(file);
  try {
    db.pragma("journal_mode = WAL");
    return migrate(db, readMigrations(migrationsDir));
  } finally {
    db.close();
  }
}
