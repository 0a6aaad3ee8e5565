import { restRoute } from "@/server/api/rest";
import { notificationPatch } from "@/server/api/routers/notifications";

export const dynamic = "force-dynamic";

/** PATCH /api/notifications/{id} {enabled} — enable or disable. */
export const PATCH = restRoute({ body: notificationPatch, handle: ({ services, params, body }) => services.notifications.service.setEnabled(params.id, body.enabled) });

/** DELETE /api/notifications/{id} — the notification and its deliveries. */
export const DELETE = restRoute({ handle: ({ services, params }) => services.notifications.service.remove(params.id) });
