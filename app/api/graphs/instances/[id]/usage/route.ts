import { z } from "zod";
import { restRoute } from "@/server/api/rest";
import { requireInstance } from "@/server/services/graph-orchestrator";

export const dynamic = "force-dynamic";

/**
 * GET /api/graphs/instances/{id}/usage?version= — its agent nodes' token usage: per instance, per node
 * (with each turn and where its trace is), per model, with costs from the model price table.
 */
export const GET = restRoute({
  query: z.object({ version: z.coerce.number().int().min(1).optional() }),
  handle: async ({ services, params, query }) => {
    requireInstance(await services.orchestrator.coordinator.instances.load(params.id), params.id);
    return services.usage.forInstance(params.id, { version: query.version });
  },
});
