import { GraphSpecCompiler } from "@/server/graph/spec/graph-spec-compiler";
import { createAgentSetup, type AgentMemory, type AgentNodesOptions, type AgentSetup } from "@/server/services/agent-nodes";
import type { SpanSink } from "@/server/agent/trace/span-record";
import { InMemoryAgentStore, type AgentStore } from "@/server/services/agents/agent-store";
import { SpecService } from "@/server/services/spec-service";
import { InMemorySpecStore, type SpecStore } from "@/server/services/spec-store";
import type { GraphCatalog } from "./cluster-worker";
import { specServiceCatalog } from "./spec-service-catalog";

export interface WorkerGraphs {
  catalog: GraphCatalog;
  /** The graph names the spec folder holds. */
  names: string[];
  specs: SpecService;
  /** The agent side (node registry, MCP servers): close `agents.mcp` when the worker stops. */
  agents: AgentSetup;
}

/**
 * What a worker compiles graphs with: the app's agent setup (same model settings, agent definitions,
 * MCP servers and tools, from the same environment), so agent nodes compile and run as in the app, and
 * a SpecService with its node registry over `store` with the spec folder saved into it. With the
 * cluster's PgSpecStore, every revision a web process saved runs here too (the folder's are saved once,
 * whichever process starts first); with the default, a store in memory, the revisions are this process's
 * copy of the folder: an instance whose spec id is not among them fails its job. One without a spec id
 * runs its graph name's latest revision. Agent conversations, approvals and suspended turns are in
 * `agentStores.memory` (any worker resumes a suspended turn), else in this process's memory.
 */
export async function workerGraphs(options: {
  specsDir: string;
  agents: AgentNodesOptions;
  store?: SpecStore;
  /** The cluster's agent stores (PostgreSQL); none: this process's memory. */
  agentStores?: { agents: AgentStore; spans?: SpanSink; memory: AgentMemory | null };
}): Promise<WorkerGraphs> {
  const stores = options.agentStores;
  const agents = createAgentSetup(options.agents, stores?.agents ?? new InMemoryAgentStore(), stores?.spans, stores?.memory ?? null);
  const specs = new SpecService(options.store ?? new InMemorySpecStore(), undefined, new GraphSpecCompiler(agents.registry));
  // The agents first, as the app starts (startAppServices): a folder spec naming one of them compiles
  // only once the definitions are read (asynchronously on PostgreSQL), else it failed at every start.
  await Promise.all([agents.loaded, agents.agents.ready]);
  const loaded = await specs.loadDirectory(options.specsDir);
  for (const f of loaded.failed) console.warn(`[modex worker] ${f.file} not compiled: ${f.message.split("\n")[0]}`);
  return { catalog: specServiceCatalog(specs), names: loaded.loaded, specs, agents };
}
