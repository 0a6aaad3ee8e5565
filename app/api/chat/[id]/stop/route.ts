import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** POST /api/chat/{id}/stop — stops the running turn (also one waiting for approval): {cancelled}. */
export const POST = restRoute({ handle: ({ services, params }) => services.chat.cancel(params.id) });
