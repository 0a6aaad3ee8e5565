import { tracked } from "@trpc/server";
import { z } from "zod";
import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";
import { chatEventStream } from "@/server/services/chat-service";

const sessionId = z.string().min(1);

/** Chat with an agent: sessions, sending a message (one agent turn), deciding its approvals, stopping it, and its live events. */
export const chatRouter = createTRPCRouter({
  /** Whether a model is configured (and which), with what to set when it is not. */
  status: protectedProcedure.query(({ ctx }) => ctx.services.chat.status()),
  /** Every chat of this server process, most recent first. */
  list: protectedProcedure.query(({ ctx }) => ctx.services.chat.list()),
  /** Starts one agent turn on the message (a new chat without `sessionId`, talking to `agent`, default `assistant`). */
  send: protectedProcedure
    .input(z.object({ sessionId: sessionId.optional(), message: z.string().trim().min(1).max(20_000), agent: z.string().min(1).max(64).optional() }))
    .mutation(({ ctx, input }) => ctx.services.chat.send(input)),
  /** Approves or denies the tool call a suspended turn waits on; the turn then resumes (see ChatService.decide). */
  decide: protectedProcedure
    .input(z.object({ sessionId, transactionId: z.string().min(1), approved: z.boolean(), reason: z.string().trim().max(2_000).optional() }))
    .mutation(({ ctx, input }) => ctx.services.chat.decide(input)),
  /** Cancels the running turn (CANCEL_TURN through the control plane). */
  cancel: protectedProcedure.input(z.object({ sessionId })).mutation(({ ctx, input }) => ctx.services.chat.cancel(input.sessionId)),
  /** A chat's events after a sequence number. */
  events: protectedProcedure
    .input(z.object({ sessionId, afterSeq: z.number().int().min(0).optional() }))
    .query(({ ctx, input }) => ctx.services.chat.events(input.sessionId, input.afterSeq)),
  /** Live events over SSE, tracked by sequence number so a reconnect resumes right after the last one. */
  onEvent: protectedProcedure
    .input(z.object({ sessionId, lastEventId: z.string().regex(/^\d+$/).nullish() }))
    .subscription(({ ctx, input, signal }) => {
      ctx.services.chat.events(input.sessionId, Number.MAX_SAFE_INTEGER); // NOT_FOUND before the stream starts
      const stream = chatEventStream(ctx.services.chat, input.sessionId, input.lastEventId ? Number(input.lastEventId) : 0, signal);
      return (async function* () {
        for await (const event of stream) yield tracked(String(event.seq), event);
      })();
    }),
});
