import { z } from "zod";
import { INSTANCE_STATUSES } from "@/server/graph/persistence/records";
import { idempotencyKeyOf, idempotentResponse } from "@/server/api/idempotent-response";
import { json, restRoute } from "@/server/api/rest";
import { directRoute } from "@/server/api/http/direct-routes";
import { TurnGate } from "@/server/api/http/turn-gate";
import { ARCHIVED_FILTERS } from "@/server/services/instance-listing";

export const dynamic = "force-dynamic";

const flag = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");
const time = z.union([z.coerce.number().int(), z.iso.datetime({ offset: true }).transform((v) => Date.parse(v))]);

/**
 * GET /api/graphs/instances?status=&waiting=&graph=&q=&from=&to=&archived=&cursor=&limit= — the latest
 * version of each matching instance, most recent activity first, as an array (one page). The page's
 * metadata is in headers: `X-Total-Count` (matches over every page) and `X-Next-Cursor` (absent on the
 * last page). `from`/`to`: ms since the epoch or an ISO date-time.
 */
export const GET = restRoute({
  query: z.object({
    status: z.enum(INSTANCE_STATUSES).optional(),
    waiting: flag.optional(),
    graph: z.string().min(1).optional(),
    q: z.string().max(200).optional(),
    from: time.optional(),
    to: time.optional(),
    archived: z.enum(ARCHIVED_FILTERS).optional(),
    cursor: z.string().min(1).max(400).optional(),
    limit: z.coerce.number().int().min(1).max(500).optional(),
  }),
  handle: async ({ services, query }) => {
    const page = await services.instances.page(query);
    const headers: Record<string, string> = { "x-total-count": String(page.total) };
    if (page.nextCursor) headers["x-next-cursor"] = page.nextCursor;
    return json(page.items, 200, headers);
  },
});

/**
 * A burst of creates starts one per event-loop turn, so requests that came in meanwhile are served between
 * them; the runs they start wait in the gate's later lane, so every create of the burst answers first.
 */
const creates = new TurnGate();

/**
 * POST /api/graphs/instances {spec, input?} — create and start an instance (201, once it is committed).
 * With an Idempotency-Key header, a repeat answers the first create instead of starting another run.
 * The production server answers it without Next.js once this module is loaded (direct-routes.ts).
 */
export const POST = directRoute("POST", "/api/graphs/instances", restRoute({
  body: z.strictObject({ spec: z.string().min(1), input: z.unknown().optional(), breakpoints: z.array(z.string().min(1)).max(1_000).optional() }),
  status: 201,
  handle: async ({ services, body, request }) => {
    await creates.enter();
    return idempotentResponse(await services.commands.create(body, idempotencyKeyOf(request), { kind: "api" }, () => creates.later()));
  },
}));
