/**
 * Next.js calls `register` once when a server process starts, before it serves a request: the place for
 * start-up work. The database is migrated, then the services start (spec folder loaded, stale instances
 * swept, crashed ones recovered), and the login URL is printed, as Jupyter does.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { env } = await import("@/server/env");
  const { prepareDatabaseFile } = await import("@/server/db/migrate");
  const applied = prepareDatabaseFile(env.databaseFile);
  if (applied.length > 0) console.log(`[modex] applied migrations: ${applied.join(", ")}`);

  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) {
    const { installOtlpExport } = await import("@/server/services/otlp-export");
    installOtlpExport({ endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT });
    console.log(`[modex] exporting agent spans to ${env.OTEL_EXPORTER_OTLP_ENDPOINT} (OTLP/HTTP)`);
  }

  const { ensureStarted, getAppServices } = await import("@/server/services/app-services-singleton");
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
