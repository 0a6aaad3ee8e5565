import type { AgentService } from "../agents/agent-service";

/** The extension modules the agent definitions name (`extensions:`), loaded into the app at start-up. */
export function extensionsNamedByAgents(agents: AgentService): string[] {
  const names = agents.list().flatMap((a) => agents.find(a.name)?.definition.extensions ?? []);
  return [...new Set(names)];
}
