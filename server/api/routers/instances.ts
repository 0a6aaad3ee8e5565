import { tracked } from "@trpc/server";
import { z } from "zod";
import { instanceTopology } from "@/shared/canvas/instance-topology";
import { prepareInstanceLayout, warmInstanceLayout } from "@/server/api/instance-layout";
import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";
import { instanceEventStream } from "@/server/services/instance-event-stream";
import { BulkFilterInput, BulkInput } from "@/server/api/instance-bulk-args";

const instanceId = z.string().min(1);

/** The Instances list's query (tRPC and, with strings coerced, REST). */
export const listQuery = z.object({
  // The filter a bulk action takes too (one definition), then the paging.
  ...BulkFilterInput.shape,
  cursor: z.string().min(1).max(400).optional(),
  limit: z.number().int().min(1).max(500).optional(),
});

// The instance page's server-side layout worker loads ELK (most of a second) as soon as the app's API
// loads under Next.js, not when the first instance page is asked for.
if (process.env.NEXT_RUNTIME === "nodejs") warmInstanceLayout();

/** Graph instances: list, the instance view, creation, and the event log (as a page or live over SSE). */
export const instancesRouter = createTRPCRouter({
  /**
   * A page of the latest version of each instance, most recently updated first, filtered on the server,
   * with `nextCursor` and the filter's totals (archived instances only when `archived` asks for them).
   */
  page: protectedProcedure.input(listQuery.optional()).query(({ ctx, input }) => ctx.services.instances.page(input ?? {})),
  /** The rows of one page only (see `page`). */
  list: protectedProcedure.input(listQuery.optional()).query(({ ctx, input }) => ctx.services.instances.list(input ?? {})),
  /** Hides an instance from the list (`archived: false` brings it back). */
  archive: protectedProcedure
    .input(z.object({ instanceId, archived: z.boolean().optional() }))
    .mutation(({ ctx, input }) => ctx.services.control.archive(input.instanceId, input.archived ?? true)),
  /** Deletes an instance and everything it owns; CONFLICT while it runs. Cannot be undone. */
  delete: protectedProcedure.input(z.object({ instanceId })).mutation(({ ctx, input }) => ctx.services.control.delete(input.instanceId)),
  /**
   * Archives, unarchives or deletes the named instances, or every one `filter` (the list's query) matches,
   * each as the single command does it; a running one is skipped with why. At most 10,000 a request.
   */
  bulk: protectedProcedure.input(BulkInput).mutation(({ ctx, input }) => ctx.services.bulk.apply(input)),
  /** Summary, versions, topology, per-node invocations, delivers and `waitingFor`. */
  get: protectedProcedure
    .input(z.object({ instanceId, version: z.number().int().min(1).optional(), node: z.string().min(1).nullable().optional() }))
    .query(({ ctx, input }) => ctx.services.instances.get(input)),
  /** A version's folded run state (node states, runs, used edges), its event count and last rows. */
  timeline: protectedProcedure
    .input(z.object({ instanceId, version: z.number().int().min(1).optional(), tail: z.number().int().min(0).max(1_000).optional() }))
    .query(({ ctx, input }) => ctx.services.instances.timeline(input)),
  /** Rows of a version's timeline by position (0-based), for a virtualized list. */
  timelineRows: protectedProcedure
    .input(z.object({ instanceId, version: z.number().int().min(1), offset: z.number().int().min(0), limit: z.number().int().min(1).max(1_000) }))
    .query(({ ctx, input }) => ctx.services.instances.timelineRows(input)),
  /** Creates an instance from a spec (name → latest revision, or a spec id) and starts it. */
  create: protectedProcedure
    .input(
      z.object({
        spec: z.string().min(1),
        input: z.unknown().optional(),
        idempotencyKey: z.string().min(1).max(255).optional(),
        breakpoints: z.array(z.string().min(1)).max(1_000).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const args = { spec: input.spec, input: input.input, breakpoints: input.breakpoints };
      const created = (await ctx.services.commands.create(args, input.idempotencyKey, { kind: ctx.auth.via === "cookie" ? "user" : "api" })).body;
      // Its page usually follows at once: lay its graph out meanwhile (cached per shape, once per spec).
      setImmediate(() => {
        ctx.services.instances.get({ instanceId: created.instanceId, node: null }).then(
          (view) => prepareInstanceLayout(instanceTopology(view.topology)),
          () => undefined,
        );
      });
      return created;
    }),
  /** The graph state and open delivers right after event `eventId` of the instance (replay, forks). */
  point: protectedProcedure
    .input(z.object({ instanceId, eventId: z.number().int().min(1) }))
    .query(({ ctx, input }) => ctx.services.forks.pointAt(input.instanceId, input.eventId)),
  /**
   * Forks the instance right after event `eventId`: a new instance with that point's state (or `state`,
   * checked against the spec's state schema) and open delivers, on the origin's spec revision or `spec`
   * ("latest", or a revision id of the same spec).
   */
  fork: protectedProcedure
    .input(z.object({ instanceId, eventId: z.number().int().min(1), state: z.unknown().optional(), spec: z.string().min(1).optional() }))
    .mutation(({ ctx, input }) => ctx.services.forks.fork({ ...input, startedBy: { kind: ctx.auth.via === "cookie" ? "user" : "api" } })),
  /** A page of the event log after `afterId` (exclusive); `limit` up to 10,000 (default 1,000). */
  events: protectedProcedure
    .input(z.object({ instanceId, afterId: z.number().int().min(0).optional(), limit: z.number().int().min(1).max(10_000).optional() }))
    .query(({ ctx, input }) => ctx.services.instances.events(input)),
  /**
   * Live events over SSE, each tracked by its event id: a reconnecting client sends `lastEventId` and
   * resumes right after it. Replays the log first (from `lastEventId`, or from the start).
   */
  onEvent: protectedProcedure
    .input(z.object({ instanceId, lastEventId: z.string().regex(/^\d+$/).nullish() }))
    .subscription(async ({ ctx, input, signal }) => {
      // Checked before the stream starts, so an unknown instance is NOT_FOUND rather than a broken stream.
      await ctx.services.instances.events({ instanceId: input.instanceId, limit: 1 });
      const stream = instanceEventStream({
        log: ctx.services.events,
        bus: ctx.services.bus,
        instanceId: input.instanceId,
        afterId: input.lastEventId ? Number(input.lastEventId) : 0,
        signal,
      });
      return (async function* () {
        for await (const event of stream) yield tracked(String(event.id), event);
      })();
    }),
});
