import { z } from "zod";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** GET /api/graphs/instances/{id}/events?after=&limit= — the event log after an event id (exclusive). */
export const GET = restRoute({
  query: z.object({ after: z.coerce.number().int().min(0).optional(), limit: z.coerce.number().int().min(1).max(10_000).optional() }),
  handle: ({ services, params, query }) => services.instances.events({ instanceId: params.id, afterId: query.after, limit: query.limit }),
});
