import { chatDecisionRoute } from "@/server/api/decision-routes";

export const dynamic = "force-dynamic";

/**
 * POST /api/chat/{id}/approve {reason?, transactionId?} — approves the tool call the turn waits on (that
 * approval, when named); the turn then resumes. 409 when none waits or it was decided already.
 */
export const POST = chatDecisionRoute(true);
