import { z } from "zod";
import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";

/** Named agents: immutable definition revisions listed by name (latest), addressed by id or name. */
export const agentsRouter = createTRPCRouter({
  /** The latest revision of every agent. */
  list: protectedProcedure.query(({ ctx }) => ctx.services.agents.list()),
  /** One revision with its YAML; `agent` is a revision id or a name (its latest revision). */
  get: protectedProcedure.input(z.object({ agent: z.string().min(1) })).query(({ ctx, input }) => ctx.services.agents.get(input.agent)),
  /** Every revision of a name, newest first. */
  history: protectedProcedure.input(z.object({ name: z.string().min(1) })).query(({ ctx, input }) => ctx.services.agents.history(input.name)),
  /** Every problem of a definition, located (line, column, path); `ok` when it is valid. */
  validate: protectedProcedure.input(z.object({ yaml: z.string().max(1_000_000) })).mutation(({ ctx, input }) => ctx.services.agents.validate(input.yaml)),
  /** saveIfChanged: a new revision unless the latest of that name has the same content. */
  save: protectedProcedure.input(z.object({ yaml: z.string().min(1).max(1_000_000) })).mutation(({ ctx, input }) => ctx.services.agents.save(input.yaml)),
  /** The tool catalog a definition's `tools:` picks from. */
  tools: protectedProcedure.query(({ ctx }) => ctx.services.agents.tools()),
  /** Each MCP server of config/mcp with its state (not started, starting, running, failed and why). */
  mcpServers: protectedProcedure.query(({ ctx }) => ctx.services.agents.mcpServers()),
  /** JSON Schema of the definition format, for editor completion. */
  jsonSchema: protectedProcedure.query(({ ctx }) => ctx.services.agents.jsonSchema()),
});
