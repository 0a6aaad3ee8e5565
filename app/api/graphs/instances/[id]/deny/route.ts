import { instanceDecisionRoute } from "@/server/api/decision-routes";

export const dynamic = "force-dynamic";

/**
 * POST /api/graphs/instances/{id}/deny {reason?, transactionId?} — denies the tool call an agent node of
 * the instance waits on: the agent reads that it was denied (and why) and its turn goes on (409 when
 * nothing waits). Answers once the decision is committed and the run resumed. With an Idempotency-Key
 * header, a repeat answers what the first did (Idempotent-Replayed: true).
 */
export const POST = instanceDecisionRoute(false);
