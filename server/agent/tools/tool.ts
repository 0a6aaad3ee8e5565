import { z } from "zod";
import type { ToolSpec } from "../llm/messages";
import type { TurnCustomMap } from "../state/turn-custom";

export interface ToolExecutionContext {
  /** Aborted on cancellation or when the tool's deadline passes; long-running tools must honour it. */
  signal: AbortSignal;
  callId: string;
  sessionId: string;
  turnId: string;
  /**
   * The turn's custom map, for what a tool must remember for the rest of its turn (the deliver tool's
   * deliveries): it is saved with the turn when an approval suspends it, so it outlives the suspend and a
   * restart. Values must be JSON-serialisable. Absent when a tool runs outside an agent's turn.
   */
  custom?: TurnCustomMap;
}

/** What a tool returns: plain text for the model, or text flagged as an error. */
export type ToolOutput = string | { content: string; isError?: boolean };

/**
 * A tool: a name, a description for the model, a zod schema for its arguments (sent to the model as JSON
 * schema and used to validate what the model passes), whether a human must approve each call, and the
 * implementation.
 */
export interface Tool<Args extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly args: Args;
  readonly needsApproval: boolean;
  /**
   * When `needsApproval` is false: asks anyway for a call whose arguments match (an agent's approval rule
   * like `{ tool: deliver, when: { target: __end__ } }`). Must not throw.
   */
  readonly approvalWhen?: (args: Record<string, unknown>) => boolean;
  /** The tool only reads (files, the web…); an agent whose tools all do is a reader (see knowledgeActionsFor). */
  readonly readOnly?: boolean;
  execute(args: z.output<Args>, ctx: ToolExecutionContext): Promise<ToolOutput>;
}

export interface ToolDefinition<Args extends z.ZodType> {
  name: string;
  description: string;
  args: Args;
  needsApproval?: boolean;
  readOnly?: boolean;
  execute(args: z.output<Args>, ctx: ToolExecutionContext): Promise<ToolOutput> | ToolOutput;
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function defineTool<Args extends z.ZodType>(definition: ToolDefinition<Args>): Tool<Args> {
  if (!TOOL_NAME.test(definition.name)) throw new Error(`invalid tool name ${JSON.stringify(definition.name)}`);
  return {
    name: definition.name,
    description: definition.description,
    args: definition.args,
    needsApproval: definition.needsApproval ?? false,
    ...(definition.readOnly ? { readOnly: true } : {}),
    execute: async (args, ctx) => definition.execute(args, ctx),
  };
}

/** JSON Schema of each argument schema, made once: agents built per graph-node execution reuse their tools' schemas. */
const parametersOf = new WeakMap<z.ZodType, Record<string, unknown>>();

/** The tool as the model sees it. */
export function toolSpec(tool: Tool): ToolSpec {
  let parameters = parametersOf.get(tool.args);
  if (!parameters) {
    const { $schema: _drop, ...rest } = z.toJSONSchema(tool.args, { io: "input" }) as Record<string, unknown>;
    parametersOf.set(tool.args, (parameters = rest));
  }
  return { name: tool.name, description: tool.description, parameters };
}
