import { z } from "zod";
import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";

/** Graph specs: immutable revisions listed by name (latest), addressed by spec id or name. */
export const specsRouter = createTRPCRouter({
  /** The latest revision of every spec name. */
  list: protectedProcedure.query(({ ctx }) => ctx.services.specs.list()),
  /** One revision with its YAML; `spec` is a spec id or a name (its latest revision). */
  get: protectedProcedure.input(z.object({ spec: z.string().min(1) })).query(({ ctx, input }) => ctx.services.specs.get(input.spec)),
  /** Every problem of a YAML spec, located (line, column, path); `ok` when it compiles. Large specs are read off the event loop. */
  validate: protectedProcedure.input(z.object({ yaml: z.string() })).mutation(({ ctx, input }) => ctx.services.specs.validateAsync(input.yaml)),
  /** saveIfChanged: a new revision unless the latest of that name has the same content. Large specs are read off the event loop. */
  save: protectedProcedure.input(z.object({ yaml: z.string().min(1) })).mutation(({ ctx, input }) => ctx.services.specs.saveAsync(input.yaml)),
  /** Every revision of a name, newest first. */
  history: protectedProcedure.input(z.object({ name: z.string().min(1) })).query(({ ctx, input }) => ctx.services.specs.history(input.name)),
  /** JSON Schema of the spec format, for editor completion. */
  jsonSchema: protectedProcedure.query(({ ctx }) => ctx.services.specs.jsonSchema()),
});
