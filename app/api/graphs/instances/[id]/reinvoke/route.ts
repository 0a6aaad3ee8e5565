import { z } from "zod";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** POST /api/graphs/instances/{id}/reinvoke {input} — new input to a completed or failed instance: version N+1. */
export const POST = restRoute({
  body: z.object({ input: z.unknown() }),
  handle: ({ services, params, body }) => services.control.reinvoke(params.id, body.input ?? null),
});
