import { restRoute } from "@/server/api/rest";
import { TurnPageQuery } from "@/server/api/turn-page-args";

export const dynamic = "force-dynamic";

/**
 * GET /api/traces?source=all|chat|node&errors=1&limit=&cursor= — the newest finished agent turns (chats
 * and graph runs), a page at a time: { turns, nextCursor }.
 */
export const GET = restRoute({ query: TurnPageQuery, handle: ({ services, query }) => services.traces.recent(query) });
