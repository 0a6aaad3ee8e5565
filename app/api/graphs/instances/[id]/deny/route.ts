import { z } from "zod";
import { idempotencyKeyOf, idempotentResponse } from "@/server/api/idempotent-response";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/**
 * POST /api/graphs/instances/{id}/deny {reason?, transactionId?} — denies the tool call an agent node of
 * the instance waits on: the agent reads that it was denied (and why) and its turn goes on (409 when
 * nothing waits). Answers once the decision is committed and the run resumed. With an Idempotency-Key
 * header, a repeat answers what the first did (Idempotent-Replayed: true).
 */
export const POST = restRoute({
  body: z.object({ transactionId: z.string().min(1).optional(), reason: z.string().max(2_000).optional() }).strict().optional(),
  handle: async ({ services, params, body, auth, request }) =>
    idempotentResponse(
      await services.commands.decide(
        { instanceId: params.id, approved: false, reason: body?.reason, transactionId: body?.transactionId, by: auth.via === "cookie" ? "session" : "token" },
        idempotencyKeyOf(request),
      ),
    ),
});
