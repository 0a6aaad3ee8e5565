import packageJson from "@/package.json";
import { createTRPCRouter, publicProcedure } from "@/server/api/trpc";

/** Version reported by the health check until the engine exports its own. */
export const ENGINE_VERSION: string = packageJson.version;

/**
 * What `GET /api/health` names itself: clients (modexctl) tell a Modex server from whatever else
 * listens on a port by this field, so a wrong --url reads "not a Modex server", not "not found".
 */
export const SERVICE_NAME = "modex";

export interface Health {
  ok: true;
  service: typeof SERVICE_NAME;
  engine: string;
  /** Server time, ISO 8601. */
  time: string;
}

export function readHealth(now: Date = new Date()): Health {
  return { ok: true, service: SERVICE_NAME, engine: ENGINE_VERSION, time: now.toISOString() };
}

export const healthRouter = createTRPCRouter({
  health: publicProcedure.query(() => readHealth()),
});
