import type { AnyProcedure } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import { refuseUntrustedRequest } from "@/server/api/http/request-guard";
import { checkTrpcRequest, procedurePaths } from "@/server/api/http/trpc-request-limits";
import { appRouter } from "@/server/api/root";
import { createTRPCContext } from "@/server/api/trpc";
import { env } from "@/server/env";
import { getAppServices } from "@/server/services/app-services-singleton";

// Subscriptions stream over SSE for as long as the client listens: never cache or prerender this route.
export const dynamic = "force-dynamic";

const ENDPOINT = "/api/trpc";
// Flat at run time: "instances.events" → its procedure.
const procedures = appRouter._def.procedures as unknown as Record<string, AnyProcedure | undefined>;

async function handler(req: Request): Promise<Response> {
  // Unknown Host → 421; a mutation (a POST) from another origin → 403, before tRPC sees it.
  const refused = refuseUntrustedRequest(req);
  if (refused) return refused;
  const paths = procedurePaths(new URL(req.url), ENDPOINT);
  if (paths.length > env.MODEX_MAX_BATCH) {
    return trpcError(400, "BAD_REQUEST", `a batch of ${paths.length} procedures; at most ${env.MODEX_MAX_BATCH} are accepted in one request (MODEX_MAX_BATCH)`);
  }
  // A subscription streams from its first byte, so an auth error inside it would follow a 200: answer first.
  if (isSubscription(paths) && !(await getAppServices().auth.authenticate(req.headers))) {
    return trpcError(401, "UNAUTHORIZED", "log in, or send Authorization: Bearer <token>", paths[0]);
  }
  const checked = await checkTrpcRequest(req, paths);
  const response = await fetchRequestHandler({
    endpoint: ENDPOINT,
    req: checked.request,
    router: appRouter,
    // A refused body (too large, too deep) fails every call of the request with its own code and message.
    createContext: () => {
      if (checked.error) throw checked.error;
      return createTRPCContext({ headers: req.headers });
    },
    onError({ path, error }) {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`[trpc] ${path ?? "<no path>"}:`, error);
    },
  });
  response.headers.set("cache-control", "private, no-store");
  return response;
}

const isSubscription = (paths: readonly string[]) => paths.length === 1 && procedures[paths[0]]?._def.type === "subscription";

/** An answer given before tRPC runs, in tRPC's own error shape so its client reads the message. */
function trpcError(status: number, code: "BAD_REQUEST" | "UNAUTHORIZED", message: string, path?: string): Response {
  return Response.json(
    { error: { message, code: TRPC_ERROR_CODES_BY_KEY[code], data: { code, httpStatus: status, ...(path ? { path } : {}) } } },
    { status, headers: { "cache-control": "private, no-store" } },
  );
}

export { handler as GET, handler as POST };
