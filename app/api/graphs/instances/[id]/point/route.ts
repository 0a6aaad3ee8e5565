import { z } from "zod";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/**
 * GET /api/graphs/instances/{id}/point?event=N — the graph state and open delivers right after event N
 * of the instance (its last event when `event` is absent): { eventId, version, state, initial, asOf,
 * pending, running, unforkable }.
 */
export const GET = restRoute({
  query: z.object({ event: z.coerce.number().int().min(1).optional() }),
  handle: ({ services, params, query }) => services.forks.pointAt(params.id, query.event),
});
