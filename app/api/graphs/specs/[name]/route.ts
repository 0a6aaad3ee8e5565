import { z } from "zod";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** GET /api/graphs/specs/{name}[?revision=<specId>] — the latest revision of the spec with its YAML, or the revision asked for. */
export const GET = restRoute({
  query: z.object({ revision: z.string().regex(/^\d+$/, "a revision's spec id (digits)").optional() }),
  handle: ({ services, params, query }) => services.specs.revisionOf(params.name, query.revision),
});

/** DELETE /api/graphs/specs/{name} — every revision of the spec; 409 while instances of it exist. Cannot be undone. */
export const DELETE = restRoute({
  handle: ({ services, params }) => services.specs.delete(params.name),
});
