import type { Tool } from "@/server/agent/tools/tool";
import { McpConnection, type McpConnectionOptions, type McpServerStatus } from "@/server/agent/tools/mcp/mcp-connection";
import type { McpServerConfig } from "@/server/agent/tools/mcp/mcp-server-config";
import { mcpTool } from "@/server/agent/tools/mcp/mcp-tool";
import { MCP_ALL_TOOLS, MCP_TOOL_SEPARATOR, mcpToolName, splitMcpToolName } from "@/server/agent/tools/mcp/mcp-tool-names";
import { McpToolsHook, type McpToolRequest } from "./mcp-tools-hook";
import type { ToolCatalogEntry, ToolSource } from "./tool-catalog";

/**
 * The configured MCP servers as the tool catalog sees them. A server's tools are `<server>__<tool>`;
 * before it has started (servers start at first use) any such name of a configured server is accepted,
 * and `<server>__*` names all of them. Listing never starts a server: the catalog shows the tools of
 * servers that have listed theirs, and every server's state.
 */
export class McpServers implements ToolSource {
  private readonly connections = new Map<string, McpConnection>();

  constructor(configs: readonly McpServerConfig[], options: McpConnectionOptions) {
    for (const config of configs) this.connections.set(config.name, new McpConnection(config, options));
  }

  status(): McpServerStatus[] {
    return [...this.connections.values()].map((c) => c.status());
  }

  has(name: string): boolean {
    const split = splitMcpToolName(name);
    const connection = split && this.connections.get(split.server);
    if (!connection) return false;
    const known = connection.knownTools();
    return split.tool === MCP_ALL_TOOLS || known === null || known.some((t) => mcpToolName(connection.name, t.name) === name);
  }

  /** For a `<server>__<tool>` name it does not have: the server is not configured, or has no such tool. */
  explainUnknown(name: string): string | null {
    const split = splitMcpToolName(name);
    if (!split || this.has(name)) return null;
    const connection = this.connections.get(split.server);
    if (!connection) {
      const configured = [...this.connections.keys()];
      return `no MCP server "${split.server}" in config/mcp; ${configured.length > 0 ? `configured: ${configured.join(", ")}` : "none is configured"}`;
    }
    const tools = (connection.knownTools() ?? []).map((t) => mcpToolName(connection.name, t.name));
    return `MCP server "${connection.name}" has no tool "${split.tool}"; its tools: ${[...tools, `${connection.name}${MCP_TOOL_SEPARATOR}${MCP_ALL_TOOLS}`].join(", ")}`;
  }

  names(): string[] {
    return [...this.connections.values()].flatMap((c) => [`${c.name}${MCP_TOOL_SEPARATOR}${MCP_ALL_TOOLS}`, ...(c.knownTools() ?? []).map((t) => mcpToolName(c.name, t.name))]);
  }

  list(): ToolCatalogEntry[] {
    return [...this.connections.values()].flatMap((c) =>
      (c.knownTools() ?? []).map((info) => {
        const tool = mcpTool(c, info);
        return { name: tool.name, description: tool.description, scope: "any" as const, needsApproval: tool.needsApproval, readOnly: tool.readOnly === true, server: c.name };
      }),
    );
  }

  /**
   * The hook that gives an agent the MCP tools among `toolNames` before its first model call (starting
   * their servers), each passed through `adapt` (the runtime's approval policy); null when it names none.
   */
  toolsHook(toolNames: readonly string[], adapt: (tool: Tool) => Tool): McpToolsHook | null {
    const requests: McpToolRequest[] = toolNames.flatMap((name) => {
      const split = splitMcpToolName(name);
      const connection = split && this.connections.get(split.server);
      return connection ? [{ connection, name, all: split.tool === MCP_ALL_TOOLS }] : [];
    });
    return requests.length > 0 ? new McpToolsHook(requests, adapt) : null;
  }

  /** Stops every running server (shutdown, tests). */
  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.close()));
  }
}
