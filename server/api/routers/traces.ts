import { z } from "zod";
import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";
import { TurnPageInput } from "@/server/api/turn-page-args";
import { ServiceError } from "@/server/services/errors";

/** Agent turns across chats and graph runs, for browsing traces. */
export const tracesRouter = createTRPCRouter({
  /** The newest finished turns: where each ran, how it ended, its tokens and how long it took. */
  recent: protectedProcedure.input(TurnPageInput).query(({ ctx, input }) => ctx.services.traces.recent(input)),
  /** A person's choice: the turn (its root span) is in the training-data export, or not. */
  chooseTraining: protectedProcedure
    .input(z.object({ spanId: z.string().regex(/^[0-9a-f]{16}$/), included: z.boolean() }))
    .mutation(async ({ ctx, input }) => {
      const chosen = await ctx.services.traces.chooseTraining(input.spanId, input.included);
      if (!chosen) throw new ServiceError("NOT_FOUND", `no finished turn with root span ${input.spanId}`);
      return chosen;
    }),
});
