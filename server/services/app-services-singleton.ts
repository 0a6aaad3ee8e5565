// Not `server-only`: instrumentation.ts (outside the react-server condition) imports it at start-up.
import { chmodSync, existsSync } from "node:fs";
import { lockDataDir, type DataDirLock } from "@/server/db/data-dir-lock";
import { openGraphDatabase } from "@/server/db/graph-database";
import { env } from "@/server/env";
import { createAppServices, startAppServices, type AppServices, type StartupReport } from "./app-services";
import { modelSettingsOf } from "./agent-nodes";
import { AuthService } from "./auth-service";
import { AppExtensions } from "./extensions/app-extensions";
import { SqliteExtensionSettingsStore } from "./extensions/extension-settings-store";
import { SqliteExtensionStatisticsStore } from "./extensions/extension-statistics-store";
import { SqliteTokenTotals } from "./extensions/token-totals-store";
import { loadModelPrices } from "./usage/model-prices";

// One set of services per server process. Kept on globalThis: Next.js may evaluate this module more
// than once (instrumentation, route handlers, `next dev` hot reloads), and there must be one
// orchestrator, one event bus and one database connection.
const holder = globalThis as typeof globalThis & {
  modexServices?: AppServices;
  modexStartup?: Promise<StartupReport>;
  /** Held for the life of the process: closing it (or a GC of it) would release the lock. */
  modexDataDirLock?: DataDirLock;
};

/**
 * The data directory's lock, taken once per process before anything opens the database (instrumentation
 * takes it first, so a second server stops at start-up with the lock's message).
 */
export function lockAppDataDir(): DataDirLock {
  holder.modexDataDirLock ??= lockDataDir(env.dataDir);
  return holder.modexDataDirLock;
}

export function getAppServices(): AppServices {
  if (!holder.modexServices) {
    // On PostgreSQL the services connect asynchronously: instrumentation's ensureStarted makes them
    // before the server takes any request.
    if (env.DATABASE_URL) throw new Error("Modex on PostgreSQL has not started yet (ensureStarted)");
    lockAppDataDir();
    // Checkpoints in a worker thread, as `npm run bench` measures: a commit never copies the WAL back.
    const db = openGraphDatabase(env.databaseFile, { backgroundCheckpoint: true, maxSizeMb: env.MODEX_DB_MAX_MB });
    for (const suffix of ["", "-wal", "-shm"]) if (existsSync(env.databaseFile + suffix)) chmodSync(env.databaseFile + suffix, 0o600);
    holder.modexServices = createAppServices({
      db,
      auth: AuthService.fromDataDir({ tokenFile: env.tokenFile, envToken: env.MODEX_TOKEN, revocationsFile: env.revokedSessionsFile }),
      agents: { model: modelSettingsOf(env), workspace: env.dataDir, agentsDir: env.agentsDir, mcpDir: env.mcpDir, fetchAllowedHosts: env.MODEX_FETCH_ALLOWED_HOSTS, traceTier: env.MODEX_TRACE_TIER },
      // The lock makes this process the database's only executor.
      exclusive: true,
      autoRecovery: env.MODEX_RECOVERY === "on",
      extensions: new AppExtensions({
        dir: env.extensionsDir,
        settings: new SqliteExtensionSettingsStore(db),
        statistics: new SqliteExtensionStatisticsStore(db),
        tokenTotals: new SqliteTokenTotals(db),
      }),
      modelPrices: loadModelPrices(env.modelPricesFile),
      publicUrl: env.MODEX_PUBLIC_URL ?? `http://localhost:${env.PORT}`,
    });
    // A stopping server (SIGTERM, Ctrl-C) saves the extension statistics counted since the last flush:
    // on SQLite that is synchronous, as an exit handler must be.
    const services = holder.modexServices;
    process.once("exit", () => {
      try {
        services.extensions.close();
      } catch (error) {
        console.error(`[modex] extension statistics not saved at exit: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  }
  return holder.modexServices;
}

/** Tests install their own services (route handlers called directly); `null` restores the default. */
export function installAppServices(services: AppServices | null): void {
  holder.modexServices = services ?? undefined;
  holder.modexStartup = undefined;
}

/** Runs the start-up work once per process (instrumentation.ts awaits it). */
export function ensureStarted(): Promise<StartupReport> {
  holder.modexStartup ??= env.DATABASE_URL ? startOnPostgres(env.DATABASE_URL) : startAppServices(getAppServices(), { specsDir: env.specsDir });
  return holder.modexStartup;
}

/** A process of a PostgreSQL cluster (MODEX_ROLE all or web): see server/cluster/cluster-app-services.ts. */
async function startOnPostgres(url: string): Promise<StartupReport> {
  const { createClusterAppServices } = await import("@/server/cluster/cluster-app-services");
  const services = await createClusterAppServices({ url, env });
  holder.modexServices = services;
  return startAppServices(services, { specsDir: env.specsDir, recover: false });
}
