import "server-only";
import { initTRPC } from "@trpc/server";

/**
 * tRPC's context and procedure builders. Routers import `createTRPCRouter` and the procedures from here
 * and nothing else from @trpc/server's init API, so middleware (auth, timing) is added in one place.
 */

export interface TRPCContext {
  headers: Headers;
}

/** Built once per request by the route handler; tests build their own and call `createCaller`. */
export function createTRPCContext(opts: { headers: Headers }): TRPCContext {
  return { headers: opts.headers };
}

const t = initTRPC.context<TRPCContext>().create({
  // Long-lived SSE subscriptions: a ping keeps proxies from closing an idle stream, and tells the client
  // the connection is alive so it can reconnect (resuming from the last tracked id) when pings stop.
  sse: {
    ping: { enabled: true, intervalMs: 10_000 },
    client: { reconnectAfterInactivityMs: 20_000 },
  },
});

export const createTRPCRouter = t.router;
export const mergeRouters = t.mergeRouters;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure;
