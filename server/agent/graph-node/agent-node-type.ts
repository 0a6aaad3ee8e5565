import type { NodeFactory } from "../../graph/spec/node-registry";
import { AgentNode, type AgentNodeDeps } from "./agent-node";
import { AgentNodeConfigSchema, type AgentNodeConfig } from "./agent-node-config";

/**
 * The `agent` node type for graph specs: register it on the app's NodeRegistry with the app's provider
 * and tool catalog (`registry.register(createAgentNodeType(deps))`).
 */
export function createAgentNodeType(deps: AgentNodeDeps): NodeFactory<AgentNodeConfig> {
  const known = new Set((deps.tools ?? []).map((t) => t.name));
  return {
    type: "agent",
    description: "A ReAct agent: reads its input, works with its tools, and hands its result on with the deliver tool.",
    configSchema: AgentNodeConfigSchema,
    // The agent picks its target(s) through deliver, among the node's edges.
    routesBySelf: () => true,
    create(name, config, ctx) {
      config.tools.forEach((tool, i) => {
        if (!known.has(tool)) ctx.report(["config", "tools", i], `no tool named "${tool}" in the agent tool catalog`);
      });
      return new AgentNode(name, config, deps, ctx.options);
    },
  };
}
