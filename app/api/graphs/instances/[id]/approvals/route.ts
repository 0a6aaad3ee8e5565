import { restRoute } from "@/server/api/rest";
import { approvalStateOf } from "@/server/services/agents/approval-records";
import { requireInstance } from "@/server/services/graph-orchestrator";

export const dynamic = "force-dynamic";

/**
 * GET /api/graphs/instances/{id}/approvals — what the instance view's approval card shows (tRPC
 * `agentRuns.approvals`): `{ waiting, decided }`, the tool call an agent node waits on (null when none)
 * and every decision so far, oldest first: node, transactionId, tool, args, approved, reason, by
 * ("session", "token"), session (a browser's sign-in session ref, not its cookie), at, version.
 */
export const GET = restRoute({
  handle: async ({ services, params }) => approvalStateOf(requireInstance(await services.orchestrator.coordinator.instances.load(params.id), params.id)),
});
