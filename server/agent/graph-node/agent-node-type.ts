import type { NodeFactory } from "../../graph/spec/node-registry";
import { AgentNode, type AgentNodeDeps } from "./agent-node";
import { AgentNodeConfigSchema, resolveAgentNodeConfig, type AgentNodeConfigInput } from "./agent-node-config";

/**
 * The `agent` node type for graph specs: register it on the app's NodeRegistry with the app's provider,
 * tool catalog and named agents (`registry.register(createAgentNodeType(deps))`). A node's `config.agent`
 * is resolved when the spec compiles (each run compiles its spec): an unknown name, a node with neither
 * an agent nor instructions, and an unknown tool name are compile errors at their config path.
 */
export function createAgentNodeType(deps: AgentNodeDeps): NodeFactory<AgentNodeConfigInput> {
  const nodeTools = new Set(deps.nodeToolNames ?? []);
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
        if (!deps.tools?.some((t) => t.name === tool) && !nodeTools.has(tool)) ctx.report(["config", "tools", i], `no tool named "${tool}" in the agent tool catalog`);
      });
      return new AgentNode(name, resolveAgentNodeConfig(input, named), deps, ctx.options);
    },
  };
}
