import { z } from "zod";
import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";
import { requireInstance } from "@/server/services/graph-orchestrator";
import { approvalStateOf } from "@/server/services/agents/approval-records";
import type { LiveDelta } from "@/server/services/agents/agent-runs";

const target = z.object({ instanceId: z.string().min(1) });

/** Agent nodes at work in an instance: streamed text, the approval it waits on, the knowledge base. */
export const agentRunsRouter = createTRPCRouter({
  /** The approval an agent node waits on (tool, arguments, reasoning so far) and every decision (who, when). */
  approvals: protectedProcedure.input(target).query(async ({ ctx, input }) =>
    approvalStateOf(requireInstance(await ctx.services.orchestrator.coordinator.instances.load(input.instanceId), input.instanceId)),
  ),
  /** Token usage of the instance's agent nodes: per instance, node (with its turns), model; priced when a table is configured. */
  usage: protectedProcedure.input(target.extend({ version: z.number().int().min(1).optional() })).query(async ({ ctx, input }) => {
    requireInstance(await ctx.services.orchestrator.coordinator.instances.load(input.instanceId), input.instanceId);
    return ctx.services.usage.forInstance(input.instanceId, { version: input.version });
  }),
  /**
   * One agent node turn's trace (its agent spans), for the trace view, with what its model calls cost.
   * NOT_FOUND (`data.missing`: instance, node or turn) for a turn the node never ran, as over REST.
   */
  trace: protectedProcedure
    .input(target.extend({ node: z.string().min(1).max(200), turnId: z.string().min(1).max(100) }))
    .query(async ({ ctx, input }) => {
      requireInstance(await ctx.services.orchestrator.coordinator.instances.load(input.instanceId), input.instanceId);
      await ctx.services.usage.requireTurn(input.instanceId, input.node, input.turnId);
      return ctx.services.usage.trace(input.instanceId, input.node, input.turnId);
    }),
  /** The five knowledge-base files of the run (the changelog holds each write's diff). */
  knowledge: protectedProcedure.input(target).query(({ ctx, input }) => ctx.services.agentRuns.knowledge(input.instanceId)),
  /**
   * Streamed text of the instance's running agent turns: first what each model call still streaming
   * has streamed so far (`whole`), then each piece as it arrives (SSE; a finished call's text is in the
   * event log as its `message` activity).
   */
  live: protectedProcedure.input(target).subscription(async function* ({ ctx, input, signal }) {
    const queue: LiveDelta[] = [];
    let wake: (() => void) | null = null;
    const off = ctx.services.agentRuns.subscribe(input.instanceId, (d) => {
      queue.push(d);
      wake?.();
    });
    const stopped = new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve(), { once: true }));
    try {
      while (!signal?.aborted) {
        if (queue.length === 0) await Promise.race([new Promise<void>((r) => (wake = r)), stopped]);
        wake = null;
        // Batched: a fast model's words arrive many per event-loop turn.
        if (queue.length > 0) yield queue.splice(0);
      }
    } finally {
      off();
    }
  }),
});
