import "server-only";
import { z } from "zod";
import { idempotencyKeyOf, idempotentResponse } from "./idempotent-response";
import { restRoute } from "./rest";
import { authorOf } from "@/server/services/answer-author";

/**
 * The approve and deny REST routes of a tool call that waits for a person: one pair for an agent node
 * of a graph instance, one for a chat turn. The two routes of a pair differ only in the decision.
 */

/** POST /api/graphs/instances/{id}/approve|deny {transactionId?, reason?}; an Idempotency-Key makes a repeat replay the first answer. */
export const instanceDecisionRoute = (approved: boolean) =>
  restRoute({
    body: z.object({ transactionId: z.string().min(1).optional(), reason: z.string().max(2_000).optional() }).strict().optional(),
    handle: async ({ services, params, body, auth, request }) =>
      idempotentResponse(
        await services.commands.decide(
          { instanceId: params.id, approved, reason: body?.reason, transactionId: body?.transactionId, by: authorOf(auth) },
          idempotencyKeyOf(request),
        ),
      ),
  });

/** POST /api/chat/{id}/approve|deny {reason?, transactionId?}: the named approval, or the one the turn waits on. */
export const chatDecisionRoute = (approved: boolean) =>
  restRoute({
    body: z.object({ reason: z.string().trim().max(2_000).optional(), transactionId: z.string().min(1).optional() }).default({}),
    handle: ({ services, params, body }) =>
      body.transactionId
        ? services.chat.decide({ sessionId: params.id, transactionId: body.transactionId, approved, reason: body.reason })
        : services.chat.decidePending({ sessionId: params.id, approved, reason: body.reason }),
  });
