import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** POST /api/triggers/hooks/{name}/rotate — a new secret (in this answer only); the old one stops working. */
export const POST = restRoute({ handle: ({ services, params }) => services.triggers.hooks.rotate(params.name) });
