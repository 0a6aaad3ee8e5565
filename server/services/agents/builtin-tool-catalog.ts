import { DELIVER_TOOL } from "@/server/agent/graph-node/deliver-tool";
import { KNOWLEDGE_BASE_TOOL } from "@/server/agent/knowledge/knowledge-base-tool";
import { httpFetchTool } from "@/server/agent/tools/builtin/http-fetch-tool";
import { todoWriteTool } from "@/server/agent/tools/builtin/todo-write-tool";
import { type ChatToolDeps, createChatTools } from "../chat-tools";
import { ToolCatalog } from "./tool-catalog";

export interface BuiltinToolOptions {
  /** The services list_graphs, run_graph and instance_status call; read when a tool runs (late-bound). */
  modex: () => ChatToolDeps;
  /** Hosts http_fetch may reach (MODEX_FETCH_ALLOWED_HOSTS); empty: it refuses every URL. */
  fetchAllowedHosts: readonly string[];
  fetch?: typeof fetch;
}

/**
 * The app's built-in tools: `deliver` and `knowledge_base` (installed by each agent node), `todo_write`,
 * the Modex tools (`list_graphs`, `instance_status`, `run_graph`, which asks approval), and `http_fetch`
 * limited to the configured hosts.
 */
export function createBuiltinToolCatalog(options: BuiltinToolOptions): ToolCatalog {
  const catalog = new ToolCatalog()
    .add({
      name: DELIVER_TOOL,
      scope: "graph_node",
      description: "Hands the node's result on to a downstream node or to __end__ (every agent node has it).",
      needsApproval: false,
      readOnly: false,
    })
    .add({
      name: KNOWLEDGE_BASE_TOOL,
      scope: "graph_node",
      description: "The graph run's shared knowledge base: findings, decisions, open questions, context, changelog (every agent node has it).",
      needsApproval: false,
      readOnly: false,
    })
    .add(todoWriteTool());
  for (const tool of createChatTools(options.modex)) catalog.add(tool);
  return catalog.add(httpFetchTool({ allowedHosts: options.fetchAllowedHosts, fetch: options.fetch }));
}
