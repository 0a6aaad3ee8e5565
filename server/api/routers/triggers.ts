import { z } from "zod";
import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";
import { MISSED_POLICIES, OVERLAP_POLICIES } from "@/server/graph/spec/schedule-spec";
import { HOOK_LIMITS } from "@/server/services/triggers/hook-service";
import { HOOK_AUTH_MODES } from "@/server/services/triggers/hook-store";

const name = z.string().min(1).max(100);

/** A schedule made in the app (REST takes the same body). */
export const scheduleInput = z.strictObject({
  name,
  spec: z.string().min(1),
  cron: z.string().min(1).max(200),
  timezone: z.string().min(1).max(100).optional(),
  input: z.unknown().optional(),
  overlap: z.enum(OVERLAP_POLICIES).optional(),
  missed: z.enum(MISSED_POLICIES).optional(),
  paused: z.boolean().optional(),
});

/** A new webhook (REST takes the same body). */
export const hookInput = z.strictObject({
  name,
  spec: z.string().min(1),
  auth: z.enum(HOOK_AUTH_MODES).optional(),
  maxBodyBytes: z.number().int().min(2).max(HOOK_LIMITS.maxBodyBytes).optional(),
  ratePerMinute: z.number().int().min(1).max(HOOK_LIMITS.ratePerMinute).optional(),
});

/** Schedules and webhooks that start runs, and what started a run. */
export const triggersRouter = createTRPCRouter({
  /** Every schedule with its next fire times (declared in specs or made in the app). */
  schedules: protectedProcedure.query(({ ctx }) => ctx.services.triggers.schedules.list()),
  /** Creates or replaces a schedule made in the app. */
  saveSchedule: protectedProcedure.input(scheduleInput).mutation(({ ctx, input }) => ctx.services.triggers.schedules.save(input)),
  pauseSchedule: protectedProcedure.input(z.object({ name })).mutation(({ ctx, input }) => ctx.services.triggers.schedules.pause(input.name)),
  resumeSchedule: protectedProcedure.input(z.object({ name })).mutation(({ ctx, input }) => ctx.services.triggers.schedules.resume(input.name)),
  deleteSchedule: protectedProcedure.input(z.object({ name })).mutation(({ ctx, input }) => ctx.services.triggers.schedules.remove(input.name)),
  /** Every webhook, without secrets. */
  hooks: protectedProcedure.query(({ ctx }) => ctx.services.triggers.hooks.list()),
  /** A new webhook; its secret is in this answer only. */
  createHook: protectedProcedure.input(hookInput).mutation(({ ctx, input }) => ctx.services.triggers.hooks.create(input)),
  /** A new secret (in this answer only); the old one stops working at once. */
  rotateHook: protectedProcedure.input(z.object({ name })).mutation(({ ctx, input }) => ctx.services.triggers.hooks.rotate(input.name)),
  deleteHook: protectedProcedure.input(z.object({ name })).mutation(({ ctx, input }) => ctx.services.triggers.hooks.remove(input.name)),
  /** What started an instance (null for runs made before this was recorded). */
  startedBy: protectedProcedure
    .input(z.object({ instanceId: z.string().min(1) }))
    .query(({ ctx, input }) => ctx.services.triggers.startedBy(input.instanceId)),
});
