import { z } from "zod";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** GET /api/chat?q= — every chat, most recent first (q: title or any message sent contains it). */
export const GET = restRoute({
  query: z.object({ q: z.string().max(200).optional() }),
  handle: async ({ services, query }) => ({ chats: await services.chat.list(query.q), status: services.chat.status() }),
});

/** POST /api/chat {agent?, title?} — opens a chat (201) with the named agent (default: the assistant). */
export const POST = restRoute({
  body: z.object({ agent: z.string().min(1).max(64).optional(), title: z.string().max(200).optional() }).default({}),
  status: 201,
  handle: ({ services, body }) => services.chat.create(body),
});
