import { z } from "zod";
import { answeredBy, createTRPCRouter, protectedProcedure } from "@/server/api/trpc";

const target = z.object({ instanceId: z.string().min(1) });

/** The control plane: every command goes through GraphControlService, as REST and modexctl do. */
export const controlRouter = createTRPCRouter({
  /** PAUSE_GRAPH: in-flight nodes finish, no new node starts, the instance becomes PAUSED. */
  pause: protectedProcedure.input(target).mutation(({ ctx, input }) => ctx.services.control.pause(input.instanceId)),
  /** STOP_GRAPH: like pause, but terminal (STOPPED). */
  stop: protectedProcedure.input(target).mutation(({ ctx, input }) => ctx.services.control.stop(input.instanceId)),
  /** RESUME_GRAPH: PAUSED instances only (CONFLICT otherwise; one waiting for a human needs `answer`). */
  resume: protectedProcedure.input(target).mutation(({ ctx, input }) => ctx.services.control.resume(input.instanceId)),
  /** DELIVER_TO_NODE: a persisted deliver to `node`, then the engine is woken. */
  deliver: protectedProcedure
    .input(target.extend({ node: z.string().min(1), content: z.unknown() }))
    .mutation(({ ctx, input }) => ctx.services.control.deliver({ instanceId: input.instanceId, node: input.node, content: input.content ?? null })),
  /** Answers the HumanInputNode a PAUSED instance waits on; the run resumes with `value`. */
  answer: protectedProcedure
    .input(target.extend({ value: z.unknown() }))
    .mutation(({ ctx, input }) => ctx.services.control.answer(input.instanceId, input.value ?? null, answeredBy(ctx.auth))),
  /** New input to a COMPLETED or FAILED instance: version N+1. */
  reinvoke: protectedProcedure
    .input(target.extend({ input: z.unknown() }))
    .mutation(({ ctx, input }) => ctx.services.control.reinvoke(input.instanceId, input.input ?? null)),
});
