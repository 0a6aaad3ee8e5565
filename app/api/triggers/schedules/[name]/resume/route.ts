import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** POST /api/triggers/schedules/{name}/resume — fires again from the next due time (missed fires are not made up). */
export const POST = restRoute({ handle: ({ services, params }) => services.triggers.schedules.resume(params.name) });
