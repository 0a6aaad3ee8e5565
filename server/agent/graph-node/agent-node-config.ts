import { z } from "zod";
import { DEFAULT_MAX_ITERATIONS, GRAPH_NODE_MAX_TURNS } from "../state/turn-state";

/** The `config` of an `agent` node in a graph spec. */
export const AgentNodeConfigSchema = z
  .object({
    instructions: z.string().min(1).describe("The node's role: what this agent does with its input (its part of the system prompt)."),
    tools: z.array(z.string()).default([]).describe("Names of catalog tools the agent may use (the deliver tool is always installed)."),
    model: z.string().optional().describe("Overrides the configured model for this node."),
    max_iterations: z.number().int().min(1).max(200).default(DEFAULT_MAX_ITERATIONS).describe("ReAct iterations per turn attempt."),
    max_turns: z.number().int().min(1).max(10).default(GRAPH_NODE_MAX_TURNS).describe("Turn attempts (a turn that ends without deliver is retried)."),
    knowledge: z
      .object({
        require_read: z.boolean().default(false).describe("Each turn must read the shared knowledge base; a turn that did not gets one more attempt."),
        require_write: z.boolean().default(false).describe("Each turn must record something in the shared knowledge base; a turn that did not gets one more attempt."),
      })
      .strict()
      .prefault({})
      .describe("What this node must do with the run's shared knowledge base."),
  })
  .strict();

export type AgentNodeConfig = z.output<typeof AgentNodeConfigSchema>;
