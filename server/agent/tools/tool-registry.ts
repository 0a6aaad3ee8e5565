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

  needsApproval(name: string): boolean {
    return this.tools.get(name)?.needsApproval ?? false;
  }
}
