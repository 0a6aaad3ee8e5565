import type { AgentService } from "../agents/agent-service";

/** The extension modules the agent definitions name (`extensions:`), loaded into the app at start-up. */
export async function extensionsNamedByAgents(agents: AgentService): Promise<string[]> {
  const names = (await agents.list()).flatMap((a) => agents.find(a.name)?.definition.extensions ?? []);
  return [...new Set(names)];
}
