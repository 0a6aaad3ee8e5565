import type { NodeFactory } from "../../graph/spec/node-registry";
import { AgentNode, type AgentNodeDeps } from "./agent-node";
import { AgentNodeConfigSchema, resolveAgentNodeConfig, type AgentNodeConfigInput } from "./agent-node-config";

/** How the node type checks the tool names a node's config lists. */
export interface AgentNodeTypeDeps extends AgentNodeDeps {
  /**
   * Why a node may not name `tool`, or null when it may: the app's one check of tool names (the catalog's
   * built-ins, deliver and knowledge_base, and MCP servers' `<server>__<tool>` and `<server>__*`), the
   * same as agent definitions'. It checks `config.tools` and the tools of `config.approval.tools` rules.
   * Default: a name of `tools` or `nodeToolNames` (and approval rules are not checked).
   */
  checkTool?: (tool: string) => string | null;
}

/**
 * The `agent` node type for graph specs: register it on the app's NodeRegistry with the app's provider,
 * tool catalog and named agents (`registry.register(createAgentNodeType(deps))`). A node's `config.agent`
 * is resolved when the spec compiles (each run compiles its spec): an unknown name, a node with neither
 * an agent nor instructions, and an unknown tool name are compile errors at their config path.
 */
export function createAgentNodeType(deps: AgentNodeTypeDeps): NodeFactory<AgentNodeConfigInput> {
  const nodeTools = new Set(deps.nodeToolNames ?? []);
  const checkTool = deps.checkTool ?? ((tool: string) => (deps.tools?.some((t) => t.name === tool) || nodeTools.has(tool) ? null : `no tool named "${tool}" in the agent tool catalog`));
  return {
    type: "agent",
    description: "A ReAct agent: reads its input, works with its tools, and hands its result on with the deliver tool.",
    configSchema: AgentNodeConfigSchema,
    // The agent picks its target(s) through deliver, among the node's edges.
    routesBySelf: () => true,
    create(name, input, ctx) {
      const named = input.agent ? (deps.agents?.(input.agent) ?? null) : null;
      if (input.agent && !named) ctx.report(["config", "agent"], `no agent named "${input.agent}" (config/agents, or the Agents page)`);
      if (!input.agent && !input.instructions) ctx.report(["config", "instructions"], "set config.agent (a named agent) or config.instructions (an inline one)");
      (input.tools ?? []).forEach((tool, i) => {
        const why = checkTool(tool);
        if (why) ctx.report(["config", "tools", i], why);
      });
      if (deps.checkTool) {
        (input.approval?.tools ?? []).forEach((rule, i) => {
          const why = deps.checkTool!(typeof rule === "string" ? rule : rule.tool);
          if (why) ctx.report(typeof rule === "string" ? ["config", "approval", "tools", i] : ["config", "approval", "tools", i, "tool"], why);
        });
      }
      return new AgentNode(name, resolveAgentNodeConfig(input, named), deps, ctx.options);
    },
  };
}
