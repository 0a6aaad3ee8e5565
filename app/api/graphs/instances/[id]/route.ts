import { z } from "zod";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** GET /api/graphs/instances/{id}?version= — the instance view (summary, topology, invocations, waitingFor). */
export const GET = restRoute({
  query: z.object({ version: z.coerce.number().int().min(1).optional() }),
  handle: ({ services, params, query }) => services.instances.get({ instanceId: params.id, version: query.version }),
});

/** DELETE /api/graphs/instances/{id} — deletes the instance and all it owns; 409 while it runs. Cannot be undone. */
export const DELETE = restRoute({
  handle: ({ services, params }) => services.control.delete(params.id),
});
