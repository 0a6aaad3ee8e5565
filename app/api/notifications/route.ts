import { restRoute } from "@/server/api/rest";
import { notificationInput } from "@/server/api/routers/notifications";

export const dynamic = "force-dynamic";

/** GET /api/notifications — every notification, without secrets. */
export const GET = restRoute({ handle: ({ services }) => services.notifications.service.list() });

/** POST /api/notifications {url, events, graph?, enabled?} — 201 with the `secret` (shown this once). */
export const POST = restRoute({ body: notificationInput, status: 201, handle: ({ services, body }) => services.notifications.service.create(body) });
