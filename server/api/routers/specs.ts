import { z } from "zod";
import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";

/** Graph specs: immutable revisions listed by name (latest), addressed by spec id or name. */
export const specsRouter = createTRPCRouter({
  /** The latest revision of every spec name. */
  list: protectedProcedure
    .input(z.object({ archived: z.enum(["exclude", "only", "include"]).optional() }).optional())
    .query(({ ctx, input }) => ctx.services.specs.list(input ?? {})),
  /** Hides a spec name from the list (`archived: false` brings it back). */
  archive: protectedProcedure
    .input(z.object({ name: z.string().min(1), archived: z.boolean().optional() }))
    .mutation(({ ctx, input }) => ctx.services.specs.archive(input.name, input.archived ?? true)),
  /** Deletes every revision of a name; CONFLICT while instances of it exist. Cannot be undone. */
  delete: protectedProcedure.input(z.object({ name: z.string().min(1) })).mutation(({ ctx, input }) => ctx.services.specs.delete(input.name)),
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
  /** The node types of the app's registry: name, description and config fields, for the editor's completion and hover. */
  nodeTypes: protectedProcedure.query(({ ctx }) => ctx.services.specs.nodeTypes()),
});
