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
  lockAppDataDir();
  const { prepareDatabaseFile } = await import("@/server/db/migrate");
  let applied: string[];
  try {
    applied = prepareDatabaseFile(env.databaseFile);
  } catch (error) {
    throw new Error(`cannot open the database ${env.databaseFile}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (applied.length > 0) console.log(`[modex] applied migrations: ${applied.join(", ")}`);
  if (env.DATABASE_URL) await preparePostgresPreview(env.DATABASE_URL, env.databaseFile);

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

/**
 * DATABASE_URL=postgresql://…: the PostgreSQL engine tables are migrated (several processes may start at
 * once). Preview: the engine's stores exist on PostgreSQL, but the app does not use them yet.
 */
async function preparePostgresPreview(url: string, sqliteFile: string): Promise<void> {
  const { preparePostgres } = await import("@/server/db/pg/pg-migrate");
  const where = url.replace(/\/\/[^@/]*@/, "//"); // no credentials in the log
  let applied: string[];
  try {
    applied = await preparePostgres(url);
  } catch (error) {
    throw new Error(`cannot migrate the PostgreSQL database ${where}: ${error instanceof Error ? error.message : String(error)}`);
  }
  console.log(
    `[modex] PostgreSQL (preview) at ${where}: ${applied.length > 0 ? `applied migrations: ${applied.join(", ")}` : "engine tables up to date"}; ` +
      `the app still stores its data in ${sqliteFile}`,
  );
}
