import { z } from "zod";
import { idempotencyKeyOf, idempotentResponse } from "@/server/api/idempotent-response";
import { restRoute } from "@/server/api/rest";
import { authorOf } from "@/server/services/answer-author";

export const dynamic = "force-dynamic";

/**
 * POST /api/graphs/instances/{id}/answer {value} — answers the HumanInputNode the instance waits on. With
 * an Idempotency-Key header, a repeat answers what the first answer did.
 */
export const POST = restRoute({
  body: z.strictObject({ value: z.unknown() }).refine((b) => b.value !== undefined, { message: "value is required", path: ["value"] }),
  handle: async ({ services, params, body, auth, request }) =>
    idempotentResponse(
      await services.commands.answer(
        { instanceId: params.id, value: body.value, by: authorOf(auth) },
        idempotencyKeyOf(request),
      ),
    ),
});
