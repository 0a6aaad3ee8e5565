import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** POST /api/triggers/schedules/{name}/pause — no fire until resumed. */
export const POST = restRoute({ handle: ({ services, params }) => services.triggers.schedules.pause(params.name) });
