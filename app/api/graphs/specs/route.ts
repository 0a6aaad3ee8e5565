import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** GET /api/graphs/specs — the latest revision of every spec. */
export const GET = restRoute({
  handle: ({ services }) => services.specs.list(),
});
