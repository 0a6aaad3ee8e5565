import { tracked } from "@trpc/server";
import { z } from "zod";
import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";
import { BUSY_INPUT_MODES, chatEventStream } from "@/server/services/chat-service";

const sessionId = z.string().min(1);

/** Chat with an agent: sessions, sending a message (one agent turn), deciding its approvals, stopping it, and its live events. */
export const chatRouter = createTRPCRouter({
  /** Whether a model is configured (and which), with what to set when it is not. */
  status: protectedProcedure.query(({ ctx }) => ctx.services.chat.status()),
  /** Every chat (kept in the database), most recent first; `q` searches titles and messages sent. */
  list: protectedProcedure
    .input(z.object({ q: z.string().max(200).optional() }).optional())
    .query(({ ctx, input }) => ctx.services.chat.list(input?.q)),
  /** One chat's summary. */
  get: protectedProcedure.input(z.object({ sessionId })).query(({ ctx, input }) => ctx.services.chat.get(input.sessionId)),
  /**
   * Sends a message through the input pipeline (a new chat without `sessionId`, talking to `agent`):
   * a slash command runs at once; text starts a turn, or, while one runs, follows the agent's busy-input
   * mode (`busyInput` overrides it for this message).
   */
  send: protectedProcedure
    .input(z.object({ sessionId: sessionId.optional(), message: z.string().trim().min(1).max(20_000), agent: z.string().min(1).max(64).optional(), busyInput: z.enum(BUSY_INPUT_MODES).optional() }))
    .mutation(({ ctx, input }) => ctx.services.chat.send(input)),
  /** Approves or denies the tool call a suspended turn waits on; the turn then resumes (see ChatService.decide). */
  decide: protectedProcedure
    .input(z.object({ sessionId, transactionId: z.string().min(1), approved: z.boolean(), reason: z.string().trim().max(2_000).optional() }))
    .mutation(({ ctx, input }) => ctx.services.chat.decide(input)),
  /** Stops the running turn (CANCEL_TURN through the control plane; a turn waiting for approval ends at once). */
  cancel: protectedProcedure.input(z.object({ sessionId })).mutation(({ ctx, input }) => ctx.services.chat.cancel(input.sessionId)),
  rename: protectedProcedure
    .input(z.object({ sessionId, title: z.string().trim().min(1).max(200) }))
    .mutation(({ ctx, input }) => ctx.services.chat.rename(input.sessionId, input.title)),
  remove: protectedProcedure.input(z.object({ sessionId })).mutation(({ ctx, input }) => ctx.services.chat.remove(input.sessionId)),
  /** One turn's trace (its agent spans), for the trace view, with what its model calls cost (model price table). */
  trace: protectedProcedure
    .input(z.object({ sessionId, turnId: z.string().min(1) }))
    .query(async ({ ctx, input }) => {
      const trace = await ctx.services.chat.trace(input.sessionId, input.turnId);
      return { ...trace, ...ctx.services.usage.costOfSpans(trace.spans) };
    }),
  /** A chat's events after a sequence number. */
  events: protectedProcedure
    .input(z.object({ sessionId, afterSeq: z.number().int().min(0).optional() }))
    .query(({ ctx, input }) => ctx.services.chat.events(input.sessionId, input.afterSeq)),
  /** Live events over SSE, tracked by sequence number so a reconnect resumes right after the last one. */
  onEvent: protectedProcedure
    .input(z.object({ sessionId, lastEventId: z.string().regex(/^\d+$/).nullish() }))
    .subscription(async ({ ctx, input, signal }) => {
      await ctx.services.chat.get(input.sessionId); // NOT_FOUND before the stream starts
      const stream = chatEventStream(ctx.services.chat, input.sessionId, input.lastEventId ? Number(input.lastEventId) : 0, signal);
      return (async function* () {
        for await (const event of stream) yield tracked(String(event.seq), event);
      })();
    }),
});
