import { z } from "zod";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** POST /api/graphs/specs/{name}/archive[?archived=false] — hides the spec from the list (`archived=false` brings it back). */
export const POST = restRoute({
  query: z.object({ archived: z.enum(["true", "false"]).optional() }),
  handle: ({ services, params, query }) => services.specs.archive(params.name, query.archived !== "false"),
});
