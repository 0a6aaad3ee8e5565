import { instanceDecisionRoute } from "@/server/api/decision-routes";

export const dynamic = "force-dynamic";

/**
 * POST /api/graphs/instances/{id}/approve {transactionId?, reason?} — approves the tool call an agent node
 * of the instance waits on: the tool runs and the agent's turn goes on (409 when nothing waits, or when
 * `transactionId` names another approval). Answers once the decision is committed and the run resumed.
 * With an Idempotency-Key header, a repeat answers what the first did (Idempotent-Replayed: true).
 */
export const POST = instanceDecisionRoute(true);
