import { z } from "zod";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** GET /api/graphs/specs?archived=exclude|only|include — the latest revision of every spec (archived ones on request). */
export const GET = restRoute({
  query: z.object({ archived: z.enum(["exclude", "only", "include"]).optional() }),
  handle: ({ services, query }) => services.specs.list(query),
});
