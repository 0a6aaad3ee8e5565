import { z } from "zod";
import { DEFAULT_TOOL_RESULT_MAX_CHARS } from "@/server/agent/interceptor/builtin/tool-result-limit-interceptor";
import { DEFAULT_TOOL_TIMEOUT_MS } from "@/server/agent/interceptor/builtin/tool-timeout-interceptor";
import { DEFAULT_MAX_ITERATIONS } from "@/server/agent/state/turn-state";
import { ApprovalRuleSchema, LoopDetectionSettingSchema } from "@/server/agent/graph-node/agent-node-config";
import { SPAN_TIERS } from "@/server/agent/trace/create-span-hooks";
import { MemoryConfigSchema } from "@/server/agent/memory/memory-config";
import { BUSY_INPUT_MODES } from "../chat/chat-event";

/** A name other YAML (a node's `config.agent`, the chat's picker, URLs) can refer to. */
export const AGENT_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/**
 * Who asks the person before a tool runs: `tool_default` keeps each tool's own setting (run_graph asks),
 * `always` asks for every tool that is not read-only, `never` asks for none. `tools` always ask.
 * As graph nodes too: a call that asks suspends the graph instance until someone decides (see AgentNode).
 */
const ApprovalSchema = z
  .object({
    policy: z.enum(["tool_default", "always", "never"]).default("tool_default").describe("Which tool calls wait for the person's approval (chat): each tool's own setting, every tool that writes, or none."),
    tools: z.array(ApprovalRuleSchema).default([]).describe("Tools that ask first, whatever the policy: a name, or { tool, when: { argument: value(s) } } to ask only for matching calls (e.g. deliver to __end__)."),
  })
  .strict();

const LimitsSchema = z
  .object({
    max_iterations: z.number().int().min(1).max(200).default(DEFAULT_MAX_ITERATIONS).describe("ReAct iterations (model calls) per turn attempt."),
    max_turns: z.number().int().min(1).max(10).optional().describe("Turn attempts (continuations). Default: 1 in the chat, 3 as a graph node."),
    tool_timeout_seconds: z.number().positive().max(3_600).default(DEFAULT_TOOL_TIMEOUT_MS / 1_000).describe("A tool call still running after this is cut off; the model reads that it timed out."),
    tool_result_limit: z.number().int().min(1_000).max(1_000_000).default(DEFAULT_TOOL_RESULT_MAX_CHARS).describe("Characters of a tool result the model sees; the rest is saved to a file it is told about."),
  })
  .strict();

const HooksSchema = z
  .object({
    loop_detection: LoopDetectionSettingSchema.default(true).describe("Warn, then stop, an agent repeating the same tool calls: true, false, or { window, observation_rounds } (defaults 10 and 2)."),
    length_guard: z.boolean().default(true).describe("Ask the model to go on when its reply was cut off by the output-token limit."),
    todo_continuation: z.boolean().default(true).describe("Give the agent another attempt while its todo list has open items (needs max_turns > 1)."),
    current_time: z.boolean().default(false).describe("Tell the agent the current date and time at each turn start."),
    training_data: z.boolean().default(true).describe("Tag each finished turn's trace gen_ai.training.relevant (true when it completed normally) for the Traces page's training-data export."),
  })
  .strict();

const KnowledgeSchema = z
  .object({
    require_read: z.boolean().default(false).describe("As a graph node: each turn must read the run's knowledge base."),
    require_write: z.boolean().default(false).describe("As a graph node: each turn must record something in the run's knowledge base."),
  })
  .strict();

const TracingSchema = z
  .object({
    tier: z
      .enum(SPAN_TIERS)
      .optional()
      .describe("Span tier: minimal (the turn), standard (plus model calls, tools, handoffs, approvals, resumes), full (plus agent start, each ReAct iteration, and the prompt and response of each model call). Default: MODEX_TRACE_TIER."),
  })
  .strict();

/** One named agent: the single declaration the chat and `agent` graph nodes both run (config/agents/*.yml). */
export const AgentDefinitionSchema = z
  .object({
    name: z.string().regex(AGENT_NAME, "a letter, then letters, digits, - or _ (at most 64)").describe("How specs (`config.agent`) and the chat refer to this agent."),
    description: z.string().min(1).describe("Its role in a sentence: shown in lists and the chat's agent picker."),
    instructions: z.string().min(1).describe("The agent's system prompt: who it is and how it works."),
    model: z.string().min(1).optional().describe("A model name on the configured server (MODEX_LLM_BASE_URL); default: MODEX_LLM_MODEL."),
    tools: z.array(z.string().min(1)).default([]).describe("Tools from the catalog (the Agents page and GET /api/agents list it). Graph nodes always get deliver and knowledge_base."),
    approval: ApprovalSchema.prefault({}).describe("Which tool calls wait for approval."),
    limits: LimitsSchema.prefault({}).describe("Iterations, turns, tool timeout and tool-result size."),
    hooks: HooksSchema.prefault({}).describe("The guards around each turn, on or off."),
    knowledge: KnowledgeSchema.prefault({}).describe("What the agent must do with a graph run's shared knowledge base."),
    busy_input: z
      .enum(BUSY_INPUT_MODES)
      .optional()
      .describe("In the chat, a message sent while a turn runs: QUEUE runs it next (the default), INTERRUPT stops the turn (keeping what streamed) and runs it at once, STEER adds it to the running turn before its next model call."),
    tracing: TracingSchema.prefault({}).describe("What the agent's traces keep."),
    memory: MemoryConfigSchema.prefault({}).describe("Long chats: above max_context_tokens (estimated), older messages are summarized (one model call) so the chat keeps working; the transcript keeps them all."),
    extensions: z.array(z.string().min(1)).default([]).describe("Extension module files (relative to MODEX_EXTENSIONS_DIR) loaded into the app at start-up; the app's extensions run for every agent."),
  })
  .strict();

export type AgentDefinition = z.output<typeof AgentDefinitionSchema>;

/** JSON Schema of the definition format, for the editor's completion, hover and validation. */
export function agentDefinitionJsonSchema(toolNames: readonly string[]): Record<string, unknown> {
  const schema = z.toJSONSchema(AgentDefinitionSchema, { io: "input", unrepresentable: "any" }) as Record<string, unknown> & {
    properties: Record<string, Record<string, unknown>>;
  };
  if (toolNames.length > 0) {
    schema.properties.tools = { ...schema.properties.tools, items: { type: "string", enum: [...toolNames] } };
  }
  return schema;
}
