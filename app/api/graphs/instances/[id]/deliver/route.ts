import { z } from "zod";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** POST /api/graphs/instances/{id}/deliver {node, content} — DELIVER_TO_NODE: persisted deliver + engine wakeup. */
export const POST = restRoute({
  body: z.object({ node: z.string().min(1), content: z.unknown() }),
  handle: ({ services, params, body }) => services.control.deliver({ instanceId: params.id, node: body.node, content: body.content ?? null }),
});
