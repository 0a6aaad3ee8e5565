import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { env } from "@/server/env";
import { PrismaClient } from "./generated/client";

/**
 * A Prisma client on one SQLite file, through the better-sqlite3 driver adapter (no engine binary).
 * Timestamps are integer milliseconds, as the engine's prepared-statement stores write them.
 */
export function createPrismaClient(databaseFile: string): PrismaClient {
  return new PrismaClient({
    adapter: new PrismaBetterSqlite3({ url: databaseFile }, { timestampFormat: "unixepoch-ms" }),
  });
}

// One client per process. Kept on globalThis so `next dev` hot reloads do not open a new connection
// each time this module is re-evaluated.
const holder = globalThis as typeof globalThis & { modexPrisma?: PrismaClient };

/** The process-wide client on the database under MODEX_DATA_DIR (migrated at start-up). */
export function getDb(): PrismaClient {
  holder.modexPrisma ??= createPrismaClient(env.databaseFile);
  return holder.modexPrisma;
}
