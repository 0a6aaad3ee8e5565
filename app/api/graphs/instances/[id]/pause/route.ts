import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** POST /api/graphs/instances/{id}/pause — through GraphControlService, like the UI and modexctl. */
export const POST = restRoute({
  handle: ({ services, params }) => services.control.pause(params.id),
});
