import { z } from "zod";
import { refersTo } from "../../graph/spec/spec-refs";
import { MemoryConfigSchema, type MemoryConfig } from "../memory/memory-config";
import type { Tool } from "../tools/tool";
import { DEFAULT_MAX_ITERATIONS, GRAPH_NODE_MAX_TURNS } from "../state/turn-state";

/** A tool that asks approval: always (its name), or only for calls whose arguments match `when`. */
export const ApprovalRuleSchema = z.union([
  z.string().min(1),
  z
    .object({
      tool: z.string().min(1).describe("The tool's name."),
      when: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.union([z.string(), z.number(), z.boolean()]))])).describe("Argument name → the value (or any of the values) that makes a call ask."),
    })
    .strict(),
]);
export type ApprovalRule = z.output<typeof ApprovalRuleSchema>;

/**
 * Loop detection on or off, or on with its thresholds: `window` identical tool-call rounds in a row bring
 * the warning, `observation_rounds` more the stop (defaults 10 and 2: a stop at round 13). An agent with
 * a small max_iterations needs a smaller window for the guard to ever fire.
 */
export const LoopDetectionSettingSchema = z.union([
  z.boolean(),
  z
    .object({
      window: z.number().int().min(2).max(100).optional().describe("Identical tool-call rounds in a row that bring the warning (default 10)."),
      observation_rounds: z.number().int().min(0).max(10).optional().describe("Further identical rounds after the warning before the agent is stopped (default 2)."),
    })
    .strict(),
]);
export type LoopDetectionSetting = z.output<typeof LoopDetectionSettingSchema>;

const HooksSchema = z
  .object({
    loop_detection: LoopDetectionSettingSchema.optional().describe("Warn, then stop, an agent repeating the same tool calls (default on): true, false, or { window, observation_rounds }."),
    length_guard: z.boolean().optional().describe("Ask the model to go on when its reply was cut off (default on)."),
    todo_continuation: z.boolean().optional().describe("Another attempt while the todo list has open items (default on)."),
    current_time: z.boolean().optional().describe("Tell the agent the date and time at each turn start (default off)."),
    training_data: z.boolean().optional().describe("Tag each finished turn's trace as training data when it completed normally (default on)."),
  })
  .strict();

/** A node's `memory:`: any of the agent definition's fields, each over the named agent's (then the defaults). */
const NodeMemorySchema = z
  .object({
    enabled: z.boolean().optional(),
    max_context_tokens: MemoryConfigSchema.shape.max_context_tokens.unwrap().optional(),
    keep_recent_messages: MemoryConfigSchema.shape.keep_recent_messages.unwrap().optional(),
    consolidate: z.boolean().optional(),
  })
  .strict();

/**
 * The `config` of an `agent` node in a graph spec: a named agent (`agent: coder`, from config/agents or
 * the Agents page) and/or an inline definition. Every field is optional so a named agent's values are
 * the defaults and the node's own override them (its `instructions` and `tools` add to the agent's).
 */
export const AgentNodeConfigSchema = z
  .object({
    agent: z.string().min(1).optional().describe("A named agent (config/agents/*.yml, the Agents page): its instructions, tools, model, limits and hooks.").meta(refersTo("agent")),
    instructions: z.string().min(1).optional().describe("The node's role: what this agent does with its input (its part of the system prompt). Added to a named agent's instructions."),
    tools: z.array(z.string()).optional().describe("Names of catalog tools the agent may use, added to a named agent's (deliver and knowledge_base are always installed)."),
    model: z.string().optional().describe("Overrides the configured model for this node."),
    max_iterations: z.number().int().min(1).max(200).optional().describe(`ReAct iterations per turn attempt (default ${DEFAULT_MAX_ITERATIONS}).`),
    max_turns: z.number().int().min(1).max(10).optional().describe(`Turn attempts: a turn that ends without deliver is retried (default ${GRAPH_NODE_MAX_TURNS}).`),
    tool_timeout_seconds: z.number().positive().max(3_600).optional().describe("A tool call still running after this is cut off."),
    tool_result_limit: z.number().int().min(1_000).max(1_000_000).optional().describe("Characters of a tool result the model sees; the rest goes to a file."),
    hooks: HooksSchema.optional().describe("The guards around each turn, on or off."),
    approval: z
      .object({
        policy: z.enum(["tool_default", "always", "never"]).optional().describe("Which tool calls suspend the graph for a person's approval: each tool's own setting, every tool that writes, or none (default: the agent's, else never)."),
        tools: z.array(ApprovalRuleSchema).optional().describe("Tools that ask first (added to the agent's): a name, or { tool, when: { argument: value(s) } } to ask only for matching calls."),
      })
      .strict()
      .optional()
      .describe("Tool calls that wait for a person's approval (the graph instance waits meanwhile)."),
    memory: NodeMemorySchema.optional().describe("Memory cleanup of the node's conversation (over max_context_tokens, older messages are summarized): each field overrides the named agent's `memory:`."),
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
  /** `loop_detection`: off (false), or on with the thresholds set (unset ones take the hook's defaults). */
  hooks: { loop_detection: false | { window?: number; observation_rounds?: number }; length_guard: boolean; todo_continuation: boolean; current_time: boolean; training_data: boolean };
  knowledge: { require_read: boolean; require_write: boolean };
  approval: ApprovalPolicy;
  /** Memory cleanup of the node's conversation (the named agent's `memory:` under the node's own). */
  memory: MemoryConfig;
}

/** Which tool calls wait for a person: `tool_default` keeps each tool's own setting, `always` asks for every tool that writes. */
export interface ApprovalPolicy {
  policy: "tool_default" | "always" | "never";
  tools: ApprovalRule[];
}

/** Whether every call of `tool` waits for approval under `approval`. */
export function toolAsksApproval(tool: Pick<Tool, "name" | "needsApproval" | "readOnly">, approval: ApprovalPolicy): boolean {
  if (approval.tools.includes(tool.name)) return true;
  if (approval.policy === "always") return !tool.readOnly;
  if (approval.policy === "never") return false;
  return tool.needsApproval;
}

/** The tool as `approval` wants it: asking always, never, or for the calls its argument rules match. */
export function withApprovalPolicy(tool: Tool, approval: ApprovalPolicy): Tool {
  const asks = toolAsksApproval(tool, approval);
  const rules = asks ? [] : approval.tools.flatMap((r) => (typeof r === "object" && r.tool === tool.name ? [r.when] : []));
  if (asks === tool.needsApproval && rules.length === 0 && !tool.approvalWhen) return tool;
  const { approvalWhen: _dropped, ...rest } = tool;
  if (rules.length === 0) return { ...rest, needsApproval: asks };
  return { ...rest, needsApproval: false, approvalWhen: (args) => rules.some((when) => matches(when, args)) };
}

/** Every named argument equals the value, or one of the values, the rule lists (compared as text). */
function matches(when: Extract<ApprovalRule, object>["when"], args: Record<string, unknown>): boolean {
  return Object.entries(when).every(([key, expected]) => {
    const wanted = (Array.isArray(expected) ? expected : [expected]).map(String);
    return wanted.includes(String(args[key]));
  });
}

/** A named agent's values, as an agent node takes them for defaults (the app maps its definitions to this). */
export type NamedAgentDefaults = Omit<AgentNodeConfigInput, "agent"> & { instructions: string };

function loopDetectionOf(setting: LoopDetectionSetting): AgentNodeConfig["hooks"]["loop_detection"] {
  return setting === true ? {} : setting;
}

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
      loop_detection: loopDetectionOf(config.hooks?.loop_detection ?? named?.hooks?.loop_detection ?? true),
      length_guard: config.hooks?.length_guard ?? named?.hooks?.length_guard ?? true,
      todo_continuation: config.hooks?.todo_continuation ?? named?.hooks?.todo_continuation ?? true,
      current_time: config.hooks?.current_time ?? named?.hooks?.current_time ?? false,
      training_data: config.hooks?.training_data ?? named?.hooks?.training_data ?? true,
    },
    knowledge: {
      require_read: config.knowledge?.require_read ?? named?.knowledge?.require_read ?? false,
      require_write: config.knowledge?.require_write ?? named?.knowledge?.require_write ?? false,
    },
    // A node without a named agent or a policy of its own asks for nothing (the seed's graph default).
    approval: {
      policy: config.approval?.policy ?? named?.approval?.policy ?? (named ? "tool_default" : "never"),
      tools: [...(named?.approval?.tools ?? []), ...(config.approval?.tools ?? [])],
    },
    memory: MemoryConfigSchema.parse({ ...named?.memory, ...config.memory }),
  };
}
