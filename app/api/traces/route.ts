import { z } from "zod";
import { restRoute } from "@/server/api/rest";
import { TURN_CURSOR_PATTERN } from "@/server/services/traces/turn-traces";

export const dynamic = "force-dynamic";

/**
 * GET /api/traces?source=all|chat|node&errors=1&limit=&cursor= — the newest finished agent turns (chats
 * and graph runs), a page at a time: { turns, nextCursor }.
 */
export const GET = restRoute({
  query: z.object({
    source: z.enum(["all", "chat", "node"]).default("all"),
    errors: z.enum(["0", "1"]).default("0"),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: z.string().regex(TURN_CURSOR_PATTERN, "a cursor from the previous page's nextCursor").optional(),
  }),
  handle: ({ services, query }) =>
    services.traces.recent({ cursor: query.cursor, limit: query.limit, filter: { source: query.source, errorsOnly: query.errors === "1" } }),
});
