import { z } from "zod";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/**
 * POST /api/graphs/instances/{id}/fork {eventId, state?, spec?} — a new instance that runs on from the
 * point right after event `eventId` (201, once it is committed): that point's state, or `state` (checked
 * against the spec's state schema, 400 otherwise), and open delivers; on the origin's spec revision, or
 * `spec` ("latest" or a revision id of the same spec; 400 when a node left to run is missing from it).
 */
export const POST = restRoute({
  status: 201,
  body: z.strictObject({ eventId: z.number().int().min(1), state: z.unknown().optional(), spec: z.string().min(1).optional() }),
  handle: ({ services, params, body, auth }) =>
    services.forks.fork({ instanceId: params.id, ...body, startedBy: { kind: auth.via === "cookie" ? "user" : "api" } }),
});
