import { z } from "zod";
import { restRoute } from "@/server/api/rest";
import { chatSseStream, SSE_HEADERS } from "@/server/services/chat/chat-sse";

export const dynamic = "force-dynamic";

/**
 * GET /api/chat/{id}/events?after=&limit= — the chat's events after a seq (exclusive), as JSON. With
 * `Accept: text/event-stream` (or ?follow=1): those, then live until the client disconnects; the
 * Last-Event-ID header of a reconnecting EventSource counts as `after`.
 */
export const GET = restRoute({
  query: z.object({
    after: z.coerce.number().int().min(0).optional(),
    limit: z.coerce.number().int().min(1).max(10_000).optional(),
    follow: z.enum(["0", "1"]).optional(),
  }),
  handle: async ({ services, params, query, request }) => {
    const lastEventId = Number(request.headers.get("last-event-id") ?? Number.NaN);
    const after = query.after ?? (Number.isInteger(lastEventId) ? lastEventId : 0);
    const follow = query.follow === "1" || (request.headers.get("accept") ?? "").includes("text/event-stream");
    const events = await services.chat.events(params.id, after, follow ? 0 : query.limit);
    if (!follow) return { events };
    return new Response(chatSseStream({ chat: services.chat, sessionId: params.id, afterSeq: after, signal: request.signal }), { headers: SSE_HEADERS });
  },
});
