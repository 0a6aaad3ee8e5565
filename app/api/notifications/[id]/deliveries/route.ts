import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** GET /api/notifications/{id}/deliveries — its newest 50 deliveries, newest first, with every attempt. */
export const GET = restRoute({ handle: ({ services, params }) => services.notifications.service.deliveries(params.id) });
