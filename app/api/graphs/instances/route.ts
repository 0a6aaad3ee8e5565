import { z } from "zod";
import { INSTANCE_STATUSES } from "@/server/graph/persistence/records";
import { idempotencyKeyOf, idempotentResponse } from "@/server/api/idempotent-response";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** GET /api/graphs/instances?status=&limit= — latest version of each instance, newest first. */
export const GET = restRoute({
  query: z.object({ status: z.enum(INSTANCE_STATUSES).optional(), limit: z.coerce.number().int().min(1).max(500).optional() }),
  handle: ({ services, query }) => services.instances.list(query),
});

/**
 * POST /api/graphs/instances {spec, input?} — create and start an instance (201, once it is committed).
 * With an Idempotency-Key header, a repeat answers the first create instead of starting another run.
 */
export const POST = restRoute({
  body: z.object({ spec: z.string().min(1), input: z.unknown().optional() }),
  status: 201,
  handle: async ({ services, body, request }) => idempotentResponse(await services.commands.create(body, idempotencyKeyOf(request), { kind: "api" })),
});
