import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** GET /api/triggers/schedules/{name} — one schedule with its next fire times. */
export const GET = restRoute({ handle: ({ services, params }) => services.triggers.schedules.get(params.name) });

/** DELETE /api/triggers/schedules/{name} — a schedule made in the app (a declared one is removed from its spec). */
export const DELETE = restRoute({ handle: ({ services, params }) => services.triggers.schedules.remove(params.name) });
