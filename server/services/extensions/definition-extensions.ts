import type { AgentService } from "../agents/agent-service";

/**
 * The extension modules the agent definitions name (`extensions:`), loaded into the app at start-up.
 * A stored definition that no longer reads with this configuration (it names the tool of an MCP server
 * since removed from config/mcp, say) is skipped with a warning: it must not keep the app from starting;
 * a run of that agent reports the problem, and saving it again on the Agents page fixes it.
 */
export async function extensionsNamedByAgents(agents: AgentService): Promise<string[]> {
  const names = new Set<string>();
  for (const agent of await agents.list()) {
    try {
      for (const name of agents.find(agent.name)?.definition.extensions ?? []) names.add(name);
    } catch (error) {
      console.warn(`[modex] agent ${agent.name} does not validate with this configuration (its extensions are not loaded): ${(error as Error).message}`);
    }
  }
  return [...names];
}
