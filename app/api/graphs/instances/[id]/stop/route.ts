import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** POST /api/graphs/instances/{id}/stop — through GraphControlService, like the UI and modexctl. */
export const POST = restRoute({
  handle: ({ services, params }) => services.control.stop(params.id),
});
