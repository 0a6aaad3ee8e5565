import type { AgentNodeDeps } from "@/server/agent/graph-node/agent-node";
import { createAgentNodeType } from "@/server/agent/graph-node/agent-node-type";
import type { ExtensionManager } from "@/server/agent/extensions/extension-manager";
import type { LlmProvider } from "@/server/agent/llm/llm-provider";
import { InMemoryApprovalStore } from "@/server/agent/approval/approval-store";
import { InMemoryTurnSnapshotStore } from "@/server/agent/approval/turn-snapshot";
import { InMemoryNodeCheckpointStore, type NodeCheckpointStore } from "@/server/agent/graph-node/node-checkpoints";
import { InMemorySessionMemory } from "@/server/agent/react/session-memory";
import { InMemoryContextSummaryStore, type ContextSummaryStore } from "@/server/agent/memory/context-summary";
import type { SpanSink } from "@/server/agent/trace/span-record";
import type { SpanTier } from "@/server/agent/trace/create-span-hooks";
import { chain } from "@/server/graph/awaitable";
import { createBuiltinNodeRegistry } from "@/server/graph/spec/builtin-node-types";
import type { NodeRegistry } from "@/server/graph/spec/node-registry";
import { AgentAssembler, namedDefaultsOf } from "./agents/agent-assembly";
import { BUILTIN_ASSISTANT, ChatAgents } from "./agents/chat-agents";
import { AgentRuns } from "./agents/agent-runs";
import { AgentService } from "./agents/agent-service";
import type { SessionMemory } from "@/server/agent/react/session-memory";
import type { ApprovalStore } from "@/server/agent/approval/approval-store";
import type { TurnSnapshotStore } from "@/server/agent/approval/turn-snapshot";
import type { AgentStore } from "./agents/agent-store";
import { unknownToolMessage } from "./agents/agent-yaml";
import { createBuiltinToolCatalog } from "./agents/builtin-tool-catalog";
import { loadMcpDirectory } from "./agents/mcp-config";
import { toolOverflowDir, workspaceChatFiles } from "./agents/tool-overflow-dirs";
import { McpServers } from "./agents/mcp-servers";
import { ModelProviders, type ModelSettings } from "./agents/model-providers";
import { ChatService, type ChatClusterOptions, type TurnPricing } from "./chat-service";
import { chatSessionPoints } from "./extensions/session-points";
import type { ChatStore } from "./chat/chat-store";
import type { ChatToolDeps } from "./chat-tools";

export { modelSettingsOf, NO_MODEL_MESSAGE, type ModelSettings } from "./agents/model-providers";

export interface AgentNodesOptions {
  /** The model; null leaves agents valid but failing at run time with NO_MODEL_MESSAGE. */
  model?: ModelSettings | null;
  /** Replaces the model-backed provider of graph nodes (tests run a scripted one: the remote model is what cannot run here). */
  provider?: AgentNodeDeps["provider"];
  /** Replaces the chat's model-backed provider (tests). */
  chatProvider?: LlmProvider;
  /**
   * Where each run's shared knowledge base lives (`<workspace>/.modex/graphs/instances/<id>/`); oversized
   * tool results go under it (an agent node's) or under `<workspace>/.modex/chats/<id>/` (a chat's).
   */
  workspace?: string;
  /** Named agent definitions (`*.yml`) saved when the services are created, before any spec compiles against them. */
  agentsDir?: string;
  /** Hosts http_fetch may reach (MODEX_FETCH_ALLOWED_HOSTS). */
  fetchAllowedHosts?: readonly string[];
  fetch?: typeof fetch;
  /** The app's extensions, passed to every agent the assembly builds (chat and graph nodes). */
  extensions?: ExtensionManager;
  /** MCP servers (`*.yml`, config/mcp) read at start-up; their tools join the catalog as `<server>__<tool>`. */
  mcpDir?: string;
  /** The span tier of agents whose definition names none (MODEX_TRACE_TIER; default standard). */
  traceTier?: SpanTier;
}

/** The agent side of the app, wired once: definitions, the tool catalog, the node type and the chat. */
export interface AgentSetup {
  agents: AgentService;
  /** The engine's node types plus `agent`, for the spec compiler. */
  registry: NodeRegistry;
  /** The chat, once the services its Modex tools call exist; its chats live in `store` (default: memory). */
  /** `cluster`: other processes use the same chats (a PostgreSQL cluster; see ChatClusterOptions). */
  chat(modex: ChatToolDeps, store?: ChatStore, pricing?: TurnPricing, cluster?: ChatClusterOptions): ChatService;
  /** The configured MCP servers (each started at first use); closing them stops their processes. */
  mcp: McpServers;
  /** What loading `agentsDir` did (start-up report; a promise on an asynchronous store). */
  loaded: ReturnType<AgentService["loadDirectory"]>;
  /** Agent nodes at work: their streamed text and the runs' knowledge bases. */
  runs: AgentRuns;
}

/**
 * Builds the agent side: the built-in tool catalog (whose Modex tools are bound to the services later,
 * by `chat(modex)`), the definition service (loading `agentsDir` at once, so specs that name agents
 * compile), the one assembler, and the `agent` node type. Specs with agent nodes always compile, so the
 * editor works without a model; running one without a model fails that node saying what to set.
 */
/**
 * What agent nodes keep between invocations in a database: conversations, the approval a turn waits
 * on, the frozen turn, a running turn's iteration checkpoint. `joinDeferred` (SQLite): a write joins the run's deferred step transaction.
 */
export type AgentMemory = SessionMemory & ContextSummaryStore & { approvals: ApprovalStore; snapshots: TurnSnapshotStore; checkpoints: NodeCheckpointStore; joinDeferred?: () => void };

/**
 * `memory`: agent nodes' conversations, approvals and suspended turns in the database (they survive a
 * crash or restart); none: this process's memory (unit tests).
 */
export function createAgentSetup(options: AgentNodesOptions, store: AgentStore, spans?: SpanSink, memory: AgentMemory | null = null): AgentSetup {
  let modex: ChatToolDeps | null = null;
  const catalog = createBuiltinToolCatalog({
    modex: () => modex ?? unbound(),
    fetchAllowedHosts: options.fetchAllowedHosts ?? [],
    fetch: options.fetch,
  });
  const mcpConfig = loadMcpDirectory(options.mcpDir);
  for (const f of mcpConfig.failed) console.error(`[modex] MCP server config ${f.file} not loaded: ${f.message}`);
  const mcp = new McpServers(mcpConfig.servers, { cwdBase: process.cwd() });
  catalog.addSource(mcp);
  const agents = new AgentService(store, catalog, mcp);
  const loaded = options.agentsDir ? agents.loadDirectory(options.agentsDir) : { loaded: [], created: [], failed: [] };
  chain(loaded, (report) => {
    for (const f of report.failed) console.error(`[modex] agent definition ${f.file} not loaded: ${f.message}`);
  });
  const models = new ModelProviders(options.model ?? null);
  const runs = new AgentRuns(options.workspace);
  const workspace = options.workspace;
  const nodeProvider = options.provider;
  const assembler = new AgentAssembler({
    provider: ({ settings, node }) => {
      if (node !== null && nodeProvider) return nodeProvider(settings, node);
      if (node === null && options.chatProvider) return options.chatProvider;
      return models.for(settings.model);
    },
    catalog,
    overflowDir: workspace ? (owner) => toolOverflowDir(workspace, owner) : undefined,
    spans: spans ? { sink: spans, model: options.model?.model ?? null, tier: options.traceTier, tierOf: (name) => agents.find(name)?.definition.tracing.tier } : undefined,
    mcp,
    extensions: options.extensions,
  });
  const registry = createBuiltinNodeRegistry().register(
    createAgentNodeType({
      provider: nodeProvider ?? ((config) => models.for(config.model)),
      // Read when a spec compiles or a node runs, so tools added to the catalog later (MCP) are seen.
      get tools() {
        return catalog.all();
      },
      nodeToolNames: catalog.list().filter((t) => t.scope === "graph_node").map((t) => t.name),
      // The definitions' check: a node's own config.tools may name MCP tools as a definition's tools: may.
      checkTool: (name) => unknownToolMessage(name, catalog),
      agents: (name) => {
        const found = agents.find(name);
        return found ? namedDefaultsOf(found.definition) : null;
      },
      assemble: (parts) => assembler.forNode(parts),
      knowledge: options.workspace ? { workspace: options.workspace } : undefined,
      memory: memory ?? new InMemorySessionMemory(),
      summaries: memory ?? new InMemoryContextSummaryStore(),
      approvals: memory ? { approvals: memory.approvals, snapshots: memory.snapshots } : { approvals: new InMemoryApprovalStore(), snapshots: new InMemoryTurnSnapshotStore() },
      checkpoints: memory?.checkpoints ?? new InMemoryNodeCheckpointStore(),
      onDelta: runs.publish,
      beforeWrite: memory?.joinDeferred,
    }),
  );
  const configured = options.chatProvider ? options.chatProvider.name : models.label;
  return {
    agents,
    registry,
    mcp,
    loaded,
    runs,
    chat: (deps, store, pricing, cluster) => {
      modex = deps;
      const chatAgents = new ChatAgents({ agents, assembler, fallback: BUILTIN_ASSISTANT, defaultModel: options.model?.model });
      const files = workspace ? workspaceChatFiles(workspace) : undefined;
      return new ChatService({ model: configured, agents: chatAgents, store, pricing, sessions: options.extensions && chatSessionPoints(options.extensions), files, cluster });
    },
  };
}

function unbound(): never {
  throw new Error("a Modex tool ran before the app's services were bound (createAgentSetup(…).chat(services) binds them)");
}
