import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";
import { TurnPageInput } from "@/server/api/turn-page-args";

/** Agent turns across chats and graph runs, for browsing traces. */
export const tracesRouter = createTRPCRouter({
  /** The newest finished turns: where each ran, how it ended, its tokens and how long it took. */
  recent: protectedProcedure.input(TurnPageInput).query(({ ctx, input }) => ctx.services.traces.recent(input)),
});
