import path from "node:path";
import pg from "pg";
import { readMigrations, type Migration } from "../migrate";

/**
 * Applies `prisma/postgres/migrations/<timestamp>_<name>/migration.sql` in name order, with Prisma's own
 * `_prisma_migrations` bookkeeping (same table, same sha256 checksum), as server/db/migrate.ts does for
 * SQLite.
 *
 * Contract: several processes may start at once. Everything runs in one transaction that first takes a
 * transaction-scoped advisory lock, so one process migrates while the others wait, then find nothing to
 * do. A failed migration rolls back with everything else (PostgreSQL's DDL is transactional): the
 * database is left as it was. A migration applied and then edited is refused, never re-run.
 */

export const DEFAULT_PG_MIGRATIONS_DIR = path.join(process.cwd(), "prisma", "postgres", "migrations");

/** The advisory lock key of migrations (any constant; "modex" in ASCII). */
const MIGRATION_LOCK = 0x6d6f646578;

// Prisma's own definition of its bookkeeping table on PostgreSQL.
const BOOKKEEPING_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export function readPgMigrations(dir: string = DEFAULT_PG_MIGRATIONS_DIR): Migration[] {
  return readMigrations(dir);
}

/** Applies pending migrations through `client`; returns the names applied (empty when up to date). */
export async function migratePostgres(client: pg.ClientBase, migrations: Migration[] = readPgMigrations()): Promise<string[]> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(BOOKKEEPING_TABLE);
    const { rows } = await client.query<{ name: string; checksum: string }>(
      `SELECT migration_name AS name, checksum FROM "_prisma_migrations"
       WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const applied = new Map(rows.map((r) => [r.name, r.checksum]));
    const newlyApplied: string[] = [];
    for (const migration of migrations) {
      const checksum = applied.get(migration.name);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) {
          throw new Error(`Migration ${migration.name} was edited after it was applied; add a new migration instead.`);
        }
        continue;
      }
      await client.query(migration.sql); // simple protocol: several statements in one call
      await client.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count)
         VALUES (gen_random_uuid()::text, $1, $2, now(), 1)`,
        [migration.checksum, migration.name],
      );
      newlyApplied.push(migration.name);
    }
    await client.query("COMMIT");
    return newlyApplied;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/**
 * Start-up step for DATABASE_URL=postgresql://…: connects once, applies pending migrations, and closes.
 * Returns the names applied.
 */
export async function preparePostgres(url: string, migrationsDir?: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url, application_name: "modex-migrate" });
  await client.connect();
  try {
    return await migratePostgres(client, readPgMigrations(migrationsDir));
  } finally {
    await client.end();
  }
}

/** True for a postgresql:// or postgres:// URL (what selects PostgreSQL). */
export const isPostgresUrl = (url: string | undefined): url is string => !!url && /^postgres(ql)?:\/\//.test(url);
