import { AGENT_ERROR_CODES, AgentError } from "../errors";
import type { ToolSpec } from "../llm/messages";
import { toolSpec, type Tool } from "./tool";

/** The tools an agent may call, by name. */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  /** The model-facing specs, computed once per registration change (the LLM node asks every iteration). */
  private cachedSpecs: ToolSpec[] | undefined;

  constructor(tools: readonly Tool[] = []) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: Tool): this {
    if (this.tools.has(tool.name)) throw new AgentError(AGENT_ERROR_CODES.TOOL_DUPLICATE, `tool ${tool.name} is already registered`);
    this.tools.set(tool.name, tool);
    this.cachedSpecs = undefined;
    return this;
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  list(): Tool[] {
    return [...this.tools.values()];
  }

  /** JSON-schema specs for the model, in registration order. */
  specs(): ToolSpec[] {
    this.cachedSpecs ??= this.list().map(toolSpec);
    return this.cachedSpecs;
  }

  /** Whether a call waits for approval: the tool always asks, or its `approvalWhen` matches `argumentsJson`. */
  needsApproval(name: string, argumentsJson?: string): boolean {
    const tool = this.tools.get(name);
    if (!tool) return false;
    if (tool.needsApproval) return true;
    if (!tool.approvalWhen || argumentsJson === undefined) return false;
    let args: unknown;
    try {
      args = JSON.parse(argumentsJson || "{}");
    } catch {
      return false; // malformed arguments fail validation when the tool runs; nothing to approve
    }
    return !!args && typeof args === "object" && tool.approvalWhen(args as Record<string, unknown>);
  }
}
