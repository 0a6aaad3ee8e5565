import "server-only";
import { initTRPC, TRPCError } from "@trpc/server";
import { isServiceError } from "@/server/services/errors";
import type { AppServices } from "@/server/services/app-services";
import { getAppServices } from "@/server/services/app-services-singleton";
import type { AuthResult } from "@/server/services/auth-service";
import { specYamlTooLarge } from "./http/trpc-request-limits";
import { schemaIssuesOf, toTRPCError } from "./service-error-mapping";

/**
 * tRPC's context and procedure builders. Routers import `createTRPCRouter` and the procedures from here
 * and nothing else from @trpc/server's init API, so middleware (auth, error mapping) lives in one place.
 */

export interface TRPCContext {
  headers: Headers;
  /** The process's services; resolved on first use, so public procedures never open the database. */
  readonly services: AppServices;
}

/** Built once per request by the route handler; tests pass their own `services` and call `createCaller`. */
export function createTRPCContext(opts: { headers: Headers; services?: AppServices }): TRPCContext {
  let services = opts.services;
  return {
    headers: opts.headers,
    get services() {
      return (services ??= getAppServices());
    },
  };
}

const t = initTRPC.context<TRPCContext>().create({
  // Long-lived SSE subscriptions: a ping keeps proxies from closing an idle stream, and tells the client
  // the connection is alive so it can reconnect (resuming from the last tracked id) when pings stop.
  sse: {
    ping: { enabled: true, intervalMs: 10_000 },
    client: { reconnectAfterInactivityMs: 20_000 },
  },
  // Clients read `data.issues` (bad arguments: zod paths) and `data.specIssues` (a spec that does not
  // compile: paths with YAML line and column) and `data.missing` (what a NOT_FOUND could not find, where
  // a view must tell them apart) instead of parsing messages.
  errorFormatter({ shape, error }) {
    const specIssues = isServiceError(error.cause) ? (error.cause.details?.issues ?? null) : null;
    const issues = error.code === "BAD_REQUEST" && !specIssues ? schemaIssuesOf(error.cause) : null;
    const missing = isServiceError(error.cause) ? (error.cause.details?.missing ?? null) : null;
    return { ...shape, data: { ...shape.data, stack: undefined, issues, specIssues, missing } };
  },
});

export const createTRPCRouter = t.router;
export const mergeRouters = t.mergeRouters;
export const createCallerFactory = t.createCallerFactory;

/** No credentials needed: only `health`. */
export const publicProcedure = t.procedure;

/** Service errors → tRPC codes (one mapping, `service-error-mapping.ts`). */
const mapServiceErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const mapped = toTRPCError(result.error.cause);
    if (mapped) throw mapped;
  }
  return result;
});

/** Bearer token or session cookie, checked before the input is parsed: no credentials → 401. */
const requireAuth = t.middleware(async ({ ctx, next }) => {
  const auth: AuthResult = await ctx.services.auth.authenticate(ctx.headers);
  if (!auth) throw new TRPCError({ code: "UNAUTHORIZED", message: "log in, or send Authorization: Bearer <token>" });
  return next({ ctx: { auth } });
});

/**
 * A spec's YAML (`input.yaml`) over MODEX_MAX_SPEC_BYTES → 413, before it is parsed. The route handler
 * already refused bodies too large to hold an acceptable spec; this checks the YAML's own size.
 */
const limitSpecYaml = t.middleware(async ({ getRawInput, next }) => {
  const tooLarge = specYamlTooLarge(await getRawInput());
  if (tooLarge) throw tooLarge;
  return next();
});

/** Every procedure but `health`. */
export const protectedProcedure = t.procedure.use(mapServiceErrors).use(requireAuth).use(limitSpecYaml);
