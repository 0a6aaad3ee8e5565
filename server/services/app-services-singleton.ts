// Not `server-only`: instrumentation.ts (outside the react-server condition) imports it at start-up.
import { openGraphDatabase } from "@/server/db/graph-database";
import { env } from "@/server/env";
import { createAppServices, startAppServices, type AppServices, type StartupReport } from "./app-services";
import { modelSettingsOf } from "./agent-nodes";
import { AuthService } from "./auth-service";

// One set of services per server process. Kept on globalThis: Next.js may evaluate this module more
// than once (instrumentation, route handlers, `next dev` hot reloads), and there must be one
// orchestrator, one event bus and one database connection.
const holder = globalThis as typeof globalThis & {
  modexServices?: AppServices;
  modexStartup?: Promise<StartupReport>;
};

export function getAppServices(): AppServices {
  holder.modexServices ??= createAppServices({
    // Checkpoints in a worker thread, as `npm run bench` measures: a commit never copies the WAL back.
    db: openGraphDatabase(env.databaseFile, { backgroundCheckpoint: true }),
    auth: AuthService.fromDataDir({ tokenFile: env.tokenFile, envToken: env.MODEX_TOKEN, revocationsFile: env.revokedSessionsFile }),
    agents: { model: modelSettingsOf(env), workspace: env.dataDir, agentsDir: env.agentsDir, fetchAllowedHosts: env.MODEX_FETCH_ALLOWED_HOSTS },
  });
  return holder.modexServices;
}

/** Tests install their own services (route handlers called directly); `null` restores the default. */
export function installAppServices(services: AppServices | null): void {
  holder.modexServices = services ?? undefined;
  holder.modexStartup = undefined;
}

/** Runs the start-up work once per process (instrumentation.ts awaits it). */
export function ensureStarted(): Promise<StartupReport> {
  holder.modexStartup ??= startAppServices(getAppServices(), {
    specsDir: env.specsDir,
    recovery: env.MODEX_RECOVERY === "on",
  });
  return holder.modexStartup;
}
