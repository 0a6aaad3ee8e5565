import { z } from "zod";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** GET /api/chat/{id} — the chat's summary (running, waiting for approval, busy-input mode, queued). */
export const GET = restRoute({ handle: ({ services, params }) => services.chat.get(params.id) });

/** PATCH /api/chat/{id} {title} — renames it. */
export const PATCH = restRoute({
  body: z.object({ title: z.string().trim().min(1).max(200) }),
  handle: ({ services, params, body }) => services.chat.rename(params.id, body.title),
});

/** DELETE /api/chat/{id} — deletes it with its transcript (a running turn is stopped). */
export const DELETE = restRoute({ handle: ({ services, params }) => services.chat.remove(params.id) });
