import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** DELETE /api/triggers/hooks/{name} — the hook and its secret are gone; calls answer 404. */
export const DELETE = restRoute({ handle: ({ services, params }) => services.triggers.hooks.remove(params.name) });
