/**
 * Next.js calls `register` once when a server process starts, before it serves a request: the place for
 * start-up work. The data directory is locked (one server per data directory), the database migrated,
 * then the services start (spec folder loaded, orphaned instances marked and recovered), and the login
 * URL is printed, as Jupyter does. Anything that fails here stops the process with a message that names
 * the path and the cause: a server that cannot write its data directory must not claim to be running.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  try {
    await start();
  } catch (error) {
    console.error(`[modex] not started: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

async function start(): Promise<void> {
  const { env } = await import("@/server/env");
  const { lockAppDataDir, ensureStarted, getAppServices } = await import("@/server/services/app-services-singleton");
  if (env.MODEX_ROLE === "worker") throw new Error("MODEX_ROLE=worker is a worker process, not a web server: start it with `npm run start` or `npm run worker`");
  if (env.DATABASE_URL) {
    // No lock on PostgreSQL, but the token file and the agents' workspaces still live in the data directory.
    const { prepareDataDir } = await import("@/server/db/data-dir-lock");
    prepareDataDir(env.dataDir);
    await preparePostgresDatabase(env.DATABASE_URL, env.MODEX_ROLE);
  } else await prepareSqlite(env.databaseFile, lockAppDataDir);

  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) {
    const { installOtlpExport } = await import("@/server/services/otlp-export");
    installOtlpExport({ endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT });
    console.log(`[modex] exporting agent spans to ${env.OTEL_EXPORTER_OTLP_ENDPOINT} (OTLP/HTTP)`);
  }

  const report = await ensureStarted();
  for (const f of report.specs.failed) console.warn(`[modex] spec ${f.file} not loaded: ${f.message}`);
  if (report.specs.created.length > 0) console.log(`[modex] specs saved: ${report.specs.created.join(", ")}`);
  if (report.crashed.length > 0) console.log(`[modex] marked crashed: ${report.crashed.join(", ")}`);
  if (report.recovered.length > 0) console.log(`[modex] recovering: ${report.recovered.join(", ")}`);

  const { auth } = getAppServices();
  const source = env.MODEX_TOKEN ? "MODEX_TOKEN" : `${env.tokenFile}${auth.generated ? " (new)" : ""}`;
  console.log(
    [
      "[modex] Modex is running. To sign in, open this URL in a browser:",
      `    ${auth.loginUrl(`http://localhost:${env.PORT}`)}`,
      `[modex] REST and modexctl: Authorization: Bearer <token>; the token comes from ${source}`,
    ].join("\n"),
  );
}

/** The embedded database: one server per data directory (its lock), migrated at start-up. */
async function prepareSqlite(file: string, lock: () => unknown): Promise<void> {
  lock();
  const { prepareDatabaseFile } = await import("@/server/db/migrate");
  let applied: string[];
  try {
    applied = prepareDatabaseFile(file);
  } catch (error) {
    throw new Error(`cannot open the database ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (applied.length > 0) console.log(`[modex] applied migrations: ${applied.join(", ")}`);
}

/**
 * DATABASE_URL=postgresql://…: everything is stored there, migrated at start-up (several processes may
 * start at once: the migrations run under an advisory lock). No data-directory lock: processes share it.
 */
async function preparePostgresDatabase(url: string, role: string): Promise<void> {
  const { preparePostgres } = await import("@/server/db/pg/pg-migrate");
  const where = url.replace(/\/\/[^@/]*@/, "//"); // no credentials in the log
  let applied: string[];
  try {
    applied = await preparePostgres(url);
  } catch (error) {
    throw new Error(`cannot migrate the PostgreSQL database ${where}: ${error instanceof Error ? error.message : String(error)}`);
  }
  console.log(`[modex] PostgreSQL at ${where} (role ${role}): ${applied.length > 0 ? `applied migrations: ${applied.join(", ")}` : "up to date"}`);
}
