import { z } from "zod";
import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";
import { authorOf } from "@/server/services/answer-author";

const target = z.object({ instanceId: z.string().min(1) });
/** A repeat of a mutation with the same key answers what the first did (see IdempotencyService). */
const idempotencyKey = z.string().min(1).max(255).optional();

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
    .input(target.extend({ node: z.string().min(1), content: z.unknown(), idempotencyKey }))
    .mutation(async ({ ctx, input }) => {
      const { instanceId, node, content } = input;
      return (await ctx.services.commands.deliver({ instanceId, node, content: content ?? null }, input.idempotencyKey)).body;
    }),
  /** Answers the HumanInputNode a PAUSED instance waits on; the run resumes with `value`. */
  answer: protectedProcedure
    .input(target.extend({ value: z.unknown(), idempotencyKey }))
    .mutation(async ({ ctx, input }) => {
      const args = { instanceId: input.instanceId, value: input.value ?? null, by: authorOf(ctx.auth) };
      return (await ctx.services.commands.answer(args, input.idempotencyKey)).body;
    }),
  /** New input to a COMPLETED or FAILED instance: version N+1. */
  reinvoke: protectedProcedure
    .input(target.extend({ input: z.unknown(), idempotencyKey }))
    .mutation(async ({ ctx, input }) => (await ctx.services.commands.reinvoke({ instanceId: input.instanceId, input: input.input ?? null }, input.idempotencyKey)).body),
  /** APPROVE / DENY: the decision on the tool call an agent node waits on; the turn goes on at TOOL. */
  decide: protectedProcedure
    .input(target.extend({ approved: z.boolean(), reason: z.string().max(2_000).optional(), transactionId: z.string().min(1).optional(), idempotencyKey }))
    .mutation(async ({ ctx, input }) => {
      const { idempotencyKey: key, ...args } = input;
      return (await ctx.services.commands.decide({ ...args, by: authorOf(ctx.auth) }, key)).body;
    }),
  /** STEP: resumes a PAUSED instance for one node; it pauses again before the next one. */
  step: protectedProcedure.input(target).mutation(({ ctx, input }) => ctx.services.control.resume(input.instanceId, { step: true })),
  /** SET_BREAKPOINTS: the nodes the instance's runs pause before ([] clears them). */
  setBreakpoints: protectedProcedure
    .input(target.extend({ nodes: z.array(z.string().min(1)).max(1_000) }))
    .mutation(({ ctx, input }) => ctx.services.control.setBreakpoints(input.instanceId, input.nodes)),
  /** RECOVER: re-runs a CRASHED instance from its ledger (CONFLICT for any other status). */
  recover: protectedProcedure.input(target).mutation(({ ctx, input }) => ctx.services.control.recover(input.instanceId)),
});
