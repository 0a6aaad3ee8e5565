import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** POST /api/notifications/{id}/test — sends a test delivery; answers with it once tried (or after 7 s). */
export const POST = restRoute({ handle: ({ services, params }) => services.notifications.service.test(params.id) });
