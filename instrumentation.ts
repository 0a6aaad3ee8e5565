/**
 * Next.js calls `register` once when a server process starts, before it serves a request: the place for
 * start-up work. The database is prepared here so every request sees a migrated schema.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { env } = await import("@/server/env");
  const { prepareDatabaseFile } = await import("@/server/db/migrate");
  const applied = prepareDatabaseFile(env.databaseFile);
  if (applied.length > 0) console.log(`[modex] applied migrations: ${applied.join(", ")}`);
}
