import { z } from "zod";
import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";
import { NOTIFICATION_LIMITS } from "@/server/services/notifications/notification-service";

/** A new notification (REST takes the same body); the service checks the URL and the events and says what is wrong. */
export const notificationInput = z.strictObject({
  url: z.string().max(NOTIFICATION_LIMITS.urlLength),
  events: z.array(z.string().max(40)).max(10),
  graph: z.string().max(200).nullable().optional(),
  enabled: z.boolean().optional(),
});

/** PATCH /api/notifications/{id}. */
export const notificationPatch = z.strictObject({ enabled: z.boolean() });

const id = z.string().min(1).max(100);

/** Outgoing webhooks told when a run completes, fails, stops or waits for a person. */
export const notificationsRouter = createTRPCRouter({
  /** Every notification, without secrets. */
  list: protectedProcedure.query(({ ctx }) => ctx.services.notifications.service.list()),
  /** A new notification; its secret is in this answer only. */
  create: protectedProcedure.input(notificationInput).mutation(({ ctx, input }) => ctx.services.notifications.service.create(input)),
  setEnabled: protectedProcedure.input(z.object({ id, enabled: z.boolean() })).mutation(({ ctx, input }) => ctx.services.notifications.service.setEnabled(input.id, input.enabled)),
  remove: protectedProcedure.input(z.object({ id })).mutation(({ ctx, input }) => ctx.services.notifications.service.remove(input.id)),
  /** Sends a test delivery and answers once it was tried (or after 7 s). */
  test: protectedProcedure.input(z.object({ id })).mutation(({ ctx, input }) => ctx.services.notifications.service.test(input.id)),
  /** The newest deliveries of one notification. */
  deliveries: protectedProcedure.input(z.object({ id })).query(({ ctx, input }) => ctx.services.notifications.service.deliveries(input.id)),
});
