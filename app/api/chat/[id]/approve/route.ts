import { z } from "zod";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/**
 * POST /api/chat/{id}/approve {reason?, transactionId?} — approves the tool call the turn waits on (that
 * approval, when named); the turn then resumes. 409 when none waits or it was decided already.
 */
export const POST = restRoute({
  body: z.object({ reason: z.string().trim().max(2_000).optional(), transactionId: z.string().min(1).optional() }).default({}),
  handle: ({ services, params, body }) =>
    body.transactionId
      ? services.chat.decide({ sessionId: params.id, transactionId: body.transactionId, approved: true, reason: body.reason })
      : services.chat.decidePending({ sessionId: params.id, approved: true, reason: body.reason }),
});
