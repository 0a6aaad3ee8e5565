import { z } from "zod";
import { DEFAULT_MAX_ITERATIONS, GRAPH_NODE_MAX_TURNS } from "../state/turn-state";

const HooksSchema = z
  .object({
    loop_detection: z.boolean().optional().describe("Warn, then stop, an agent repeating the same tool calls (default on)."),
    length_guard: z.boolean().optional().describe("Ask the model to go on when its reply was cut off (default on)."),
    todo_continuation: z.boolean().optional().describe("Another attempt while the todo list has open items (default on)."),
    current_time: z.boolean().optional().describe("Tell the agent the date and time at each turn start (default off)."),
  })
  .strict();

/**
 * The `config` of an `agent` node in a graph spec: a named agent (`agent: coder`, from config/agents or
 * the Agents page) and/or an inline definition. Every field is optional so a named agent's values are
 * the defaults and the node's own override them (its `instructions` and `tools` add to the agent's).
 */
export const AgentNodeConfigSchema = z
  .object({
    agent: z.string().min(1).optional().describe("A named agent (config/agents/*.yml, the Agents page): its instructions, tools, model, limits and hooks."),
    instructions: z.string().min(1).optional().describe("The node's role: what this agent does with its input (its part of the system prompt). Added to a named agent's instructions."),
    tools: z.array(z.string()).optional().describe("Names of catalog tools the agent may use, added to a named agent's (deliver and knowledge_base are always installed)."),
    model: z.string().optional().describe("Overrides the configured model for this node."),
    max_iterations: z.number().int().min(1).max(200).optional().describe(`ReAct iterations per turn attempt (default ${DEFAULT_MAX_ITERATIONS}).`),
    max_turns: z.number().int().min(1).max(10).optional().describe(`Turn attempts: a turn that ends without deliver is retried (default ${GRAPH_NODE_MAX_TURNS}).`),
    tool_timeout_seconds: z.number().positive().max(3_600).optional().describe("A tool call still running after this is cut off."),
    tool_result_limit: z.number().int().min(1_000).max(1_000_000).optional().describe("Characters of a tool result the model sees; the rest goes to a file."),
    hooks: HooksSchema.optional().describe("The guards around each turn, on or off."),
    knowledge: z
      .object({
        require_read: z.boolean().optional().describe("Each turn must read the shared knowledge base; a turn that did not gets one more attempt."),
        require_write: z.boolean().optional().describe("Each turn must record something in the shared knowledge base; a turn that did not gets one more attempt."),
      })
      .strict()
      .optional()
      .describe("What this node must do with the run's shared knowledge base."),
  })
  .strict();

export type AgentNodeConfigInput = z.output<typeof AgentNodeConfigSchema>;

/** An agent node's settings once its named agent (if any) and the defaults are applied. */
export interface AgentNodeConfig {
  /** The named agent it runs, or null for an inline one. */
  agent: string | null;
  instructions: string;
  tools: string[];
  model?: string;
  max_iterations: number;
  max_turns: number;
  tool_timeout_seconds?: number;
  tool_result_limit?: number;
  hooks: { loop_detection: boolean; length_guard: boolean; todo_continuation: boolean; current_time: boolean };
  knowledge: { require_read: boolean; require_write: boolean };
}

/** A named agent's values, as an agent node takes them for defaults (the app maps its definitions to this). */
export type NamedAgentDefaults = Omit<AgentNodeConfigInput, "agent"> & { instructions: string };

/** Applies a named agent's values under the node's own, then the defaults. */
export function resolveAgentNodeConfig(config: AgentNodeConfigInput, named: NamedAgentDefaults | null = null): AgentNodeConfig {
  const pick = <K extends keyof NamedAgentDefaults>(key: K) => config[key] ?? named?.[key];
  const instructions = [named?.instructions, config.instructions].filter((s): s is string => !!s).join("\n\n");
  return {
    agent: config.agent ?? null,
    instructions,
    tools: [...new Set([...(named?.tools ?? []), ...(config.tools ?? [])])],
    model: pick("model"),
    max_iterations: pick("max_iterations") ?? DEFAULT_MAX_ITERATIONS,
    max_turns: pick("max_turns") ?? GRAPH_NODE_MAX_TURNS,
    tool_timeout_seconds: pick("tool_timeout_seconds"),
    tool_result_limit: pick("tool_result_limit"),
    hooks: {
      loop_detection: config.hooks?.loop_detection ?? named?.hooks?.loop_detection ?? true,
      length_guard: config.hooks?.length_guard ?? named?.hooks?.length_guard ?? true,
      todo_continuation: config.hooks?.todo_continuation ?? named?.hooks?.todo_continuation ?? true,
      current_time: config.hooks?.current_time ?? named?.hooks?.current_time ?? false,
    },
    knowledge: {
      require_read: config.knowledge?.require_read ?? named?.knowledge?.require_read ?? false,
      require_write: config.knowledge?.require_write ?? named?.knowledge?.require_write ?? false,
    },
  };
}
