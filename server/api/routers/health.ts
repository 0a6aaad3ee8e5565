import packageJson from "@/package.json";
import { createTRPCRouter, publicProcedure } from "@/server/api/trpc";

/** Version reported by the health check until the engine exports its own. */
export const ENGINE_VERSION: string = packageJson.version;

export interface Health {
  ok: true;
  engine: string;
  /** Server time, ISO 8601. */
  time: string;
}

export function readHealth(now: Date = new Date()): Health {
  return { ok: true, engine: ENGINE_VERSION, time: now.toISOString() };
}

export const healthRouter = createTRPCRouter({
  health: publicProcedure.query(() => readHealth()),
});
