import { z } from "zod";
import { idempotencyKeyOf, idempotentResponse } from "@/server/api/idempotent-response";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/**
 * POST /api/graphs/instances/{id}/reinvoke {input} — new input to a completed or failed instance: version
 * N+1. With an Idempotency-Key header, a repeat answers the first re-invocation instead of running another.
 */
export const POST = restRoute({
  body: z.strictObject({ input: z.unknown() }),
  handle: async ({ services, params, body, request }) =>
    idempotentResponse(await services.commands.reinvoke({ instanceId: params.id, input: body.input ?? null }, idempotencyKeyOf(request))),
});
