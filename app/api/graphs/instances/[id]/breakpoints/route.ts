import { z } from "zod";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** PUT /api/graphs/instances/{id}/breakpoints {nodes} — the nodes its runs pause before ([] clears them). */
export const PUT = restRoute({
  body: z.strictObject({ nodes: z.array(z.string().min(1)).max(1_000) }),
  handle: ({ services, params, body }) => services.control.setBreakpoints(params.id, body.nodes),
});
