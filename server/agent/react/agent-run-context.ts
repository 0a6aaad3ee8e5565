import { AsyncLocalStorage } from "node:async_hooks";

/** Who is running, visible to any code called during an agent run (tools, providers, loggers). */
export interface AgentRunContext {
  readonly sessionId: string;
  readonly turnId: string;
  /** True on a leg that re-entered the turn: to apply an approval decision, or from its checkpoint after a restart. */
  readonly resumed: boolean;
}

// The TypeScript form of the spec's per-turn contextvars: scoped to the run's async call tree, so
// concurrent runs never see each other's values and nothing outlives the run.
const storage = new AsyncLocalStorage<AgentRunContext>();

/** The run the caller is executing inside, or undefined outside any agent run. */
export function currentAgentRun(): AgentRunContext | undefined {
  return storage.getStore();
}

export function withAgentRun<T>(context: AgentRunContext, fn: () => Promise<T>): Promise<T> {
  return storage.run(context, fn);
}
