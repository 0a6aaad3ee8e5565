import { z } from "zod";
import { restRoute } from "@/server/api/rest";
import { requireInstance } from "@/server/services/graph-orchestrator";

export const dynamic = "force-dynamic";

/**
 * GET /api/graphs/instances/{id}/trace?node=&turn= — one agent node turn's trace, as the web trace view
 * shows it (tRPC `agentRuns.trace`): `{ instanceId, node, turnId, title, spans, cost, currency }`, spans
 * earliest first. The turns are listed by GET …/usage (each node's `turns`) and GET /api/traces.
 * 404 for an unknown instance, a node that ran no agent turn or a turn it did not run.
 */
export const GET = restRoute({
  query: z.object({ node: z.string().min(1).max(200), turn: z.string().min(1).max(100) }),
  handle: async ({ services, params, query }) => {
    requireInstance(await services.orchestrator.coordinator.instances.load(params.id), params.id);
    await services.usage.requireTurn(params.id, query.node, query.turn);
    return services.usage.trace(params.id, query.node, query.turn);
  },
});
