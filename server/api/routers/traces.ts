import { z } from "zod";
import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";
import { TURN_CURSOR_PATTERN } from "@/server/services/traces/turn-traces";

/** What the Traces list (and GET /api/traces) asks for: a page of turns, newest first. */
export const TurnPageInput = z.object({
  cursor: z.string().regex(TURN_CURSOR_PATTERN, "a cursor from the previous page's nextCursor").nullish(),
  limit: z.number().int().min(1).max(200).default(50),
  source: z.enum(["all", "chat", "node"]).default("all"),
  errorsOnly: z.boolean().default(false),
});

/** Agent turns across chats and graph runs, for browsing traces. */
export const tracesRouter = createTRPCRouter({
  /** The newest finished turns: where each ran, how it ended, its tokens and how long it took. */
  recent: protectedProcedure.input(TurnPageInput).query(({ ctx, input }) =>
    ctx.services.traces.recent({ cursor: input.cursor, limit: input.limit, filter: { source: input.source, errorsOnly: input.errorsOnly } }),
  ),
});
