import { z } from "zod";
import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";

/** The app's extensions (MODEX_EXTENSIONS_DIR): what each is, whether it is on, what it did. */
export const extensionsRouter = createTRPCRouter({
  /** The extensions folder, every extension (points, priority, enabled, statistics summed over every process, source) and the modules that failed to load. */
  list: protectedProcedure.query(({ ctx }) => ctx.services.extensions.report()),
  /** Turns one on or off; committed (and kept across restarts) before it answers. NOT_FOUND for an unknown name. */
  setEnabled: protectedProcedure
    .input(z.object({ name: z.string().min(1), enabled: z.boolean() }))
    .mutation(({ ctx, input }) => ctx.services.extensions.setEnabled(input.name, input.enabled)),
  /** The text as the running secret_masking would mask it, with the count of masks; nothing stored or logged. NOT_FOUND: not configured; CONFLICT: turned off; PAYLOAD_TOO_LARGE: over 64 KiB. */
  previewSecretMasking: protectedProcedure
    .input(z.object({ text: z.string() }))
    .mutation(({ ctx, input }) => ctx.services.extensions.previewSecretMasking(input.text)),
  /** Zeroes the statistics of every process (those in the database, and each process's unsaved counts); answers the list as it now is. */
  resetStatistics: protectedProcedure.mutation(({ ctx }) => ctx.services.extensions.resetStatistics()),
});
