import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { errorResponse } from "@/server/api/rest";
import { appRouter } from "@/server/api/root";
import { createTRPCContext } from "@/server/api/trpc";
import { isCrossOriginWrite } from "@/server/services/auth-service";

// Subscriptions stream over SSE for as long as the client listens: never cache or prerender this route.
export const dynamic = "force-dynamic";

function handler(req: Request): Promise<Response> {
  // Mutations are POSTs: one from another origin is refused before tRPC sees it (auth is per procedure).
  if (isCrossOriginWrite(req.method, req.headers)) {
    return Promise.resolve(errorResponse(403, "FORBIDDEN", "cross-origin request refused"));
  }
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: () => createTRPCContext({ headers: req.headers }),
    onError({ path, error }) {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`[trpc] ${path ?? "<no path>"}:`, error);
    },
  });
}

export { handler as GET, handler as POST };
