/**
 * `npm run worker`: one worker process (MODEX_ROLE=worker) on DATABASE_URL (worker-run.ts). A worker
 * that cannot start (a bad setting, the database out of reach) says why in one line and exits 1, as the
 * web process does, instead of dying on an uncaught error's stack trace. The run is imported, not
 * called: reading the settings is part of loading its modules (server/env.ts).
 */
try {
  await import("./worker-run");
} catch (error) {
  console.error(`[modex worker] not started: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

export {};
