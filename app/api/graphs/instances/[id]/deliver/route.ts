import { z } from "zod";
import { idempotencyKeyOf, idempotentResponse } from "@/server/api/idempotent-response";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/**
 * POST /api/graphs/instances/{id}/deliver {node, content} — DELIVER_TO_NODE: persisted deliver + engine
 * wakeup. With an Idempotency-Key header, a repeat answers the first deliver instead of adding another.
 */
export const POST = restRoute({
  body: z.strictObject({ node: z.string().min(1), content: z.unknown() }),
  handle: async ({ services, params, body, request }) =>
    idempotentResponse(
      await services.commands.deliver({ instanceId: params.id, node: body.node, content: body.content ?? null }, idempotencyKeyOf(request)),
    ),
});
