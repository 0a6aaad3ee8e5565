import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** POST /api/graphs/instances/{id}/step — resumes a PAUSED instance for one node, then it pauses again. */
export const POST = restRoute({
  handle: ({ services, params }) => services.control.resume(params.id, { step: true }),
});
