import { z } from "zod";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** POST /api/graphs/instances/{id}/archive[?archived=false] — hides it from the list (`archived=false` brings it back). */
export const POST = restRoute({
  query: z.object({ archived: z.enum(["true", "false"]).optional() }),
  handle: ({ services, params, query }) => services.control.archive(params.id, query.archived !== "false"),
});
