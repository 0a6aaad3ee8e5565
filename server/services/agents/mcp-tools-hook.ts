import { BeforeGraphHook } from "@/server/agent/hook/hook-contracts";
import type { HookContext } from "@/server/agent/hook/hook-context";
import type { Tool } from "@/server/agent/tools/tool";
import type { ToolRegistry } from "@/server/agent/tools/tool-registry";
import type { McpConnection, McpToolInfo } from "@/server/agent/tools/mcp/mcp-connection";
import { mcpTool, unlistedMcpTool } from "@/server/agent/tools/mcp/mcp-tool";
import { mcpToolName, splitMcpToolName } from "@/server/agent/tools/mcp/mcp-tool-names";

/** One `tools:` entry naming an MCP tool (`everything__echo`) or a whole server (`everything__*`). */
export interface McpToolRequest {
  connection: McpConnection;
  name: string;
  all: boolean;
}

/**
 * How long an agent's run waits for its servers to start before its first model call. Below the hook
 * runner's 10 s limit; a server still starting then adds its tools when it is up (from the next model call).
 */
const START_WAIT_MS = 8_000;

/**
 * Gives an agent its MCP tools at the start of each run (and approval resume): starts their servers
 * (the first use), then registers the tools in the agent's registry. A server that is down still
 * leaves the tools it listed before, or the ones named explicitly, in place: calling one tries the
 * server again or answers why it is down, so the agent sees a tool error and the app goes on.
 */
export class McpToolsHook extends BeforeGraphHook {
  private registry: ToolRegistry | null = null;

  constructor(
    private readonly requests: readonly McpToolRequest[],
    private readonly adapt: (tool: Tool) => Tool,
    private readonly waitMs = START_WAIT_MS,
  ) {
    super();
  }

  /** The agent's registry (the agent is built after its hooks). */
  attach(registry: ToolRegistry): this {
    this.registry = registry;
    return this;
  }

  async beforeGraph(_ctx: HookContext<"BEFORE_GRAPH">): Promise<void> {
    const byServer = new Map<McpConnection, McpToolRequest[]>();
    for (const r of this.requests) byServer.set(r.connection, [...(byServer.get(r.connection) ?? []), r]);
    await Promise.all([...byServer].map(([connection, requests]) => this.prepare(connection, requests)));
  }

  private async prepare(connection: McpConnection, requests: readonly McpToolRequest[]): Promise<void> {
    const listing = connection.listTools();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<"waiting">((resolve) => (timer = setTimeout(() => resolve("waiting"), this.waitMs)));
    try {
      const outcome = await Promise.race([listing, waited]);
      if (outcome === "waiting") {
        listing.then((tools) => this.register(connection, requests, tools)).catch(() => {});
        return;
      }
      this.register(connection, requests, outcome);
    } catch {
      this.register(connection, requests, connection.knownTools());
    } finally {
      clearTimeout(timer);
    }
  }

  /** Registers what the requests name among `listed` (null: the server never listed; explicit names get stand-ins). */
  private register(connection: McpConnection, requests: readonly McpToolRequest[], listed: readonly McpToolInfo[] | null): void {
    const registry = this.registry;
    if (!registry) return;
    const tools: Tool[] = [];
    for (const request of requests) {
      if (listed === null) {
        if (!request.all) tools.push(unlistedMcpTool(connection, splitMcpToolName(request.name)!.tool));
        continue;
      }
      const infos = request.all ? listed : listed.filter((t) => mcpToolName(connection.name, t.name) === request.name);
      if (infos.length === 0) console.warn(`[modex] MCP server "${connection.name}" has no tool for "${request.name}"`);
      tools.push(...infos.map((info) => mcpTool(connection, info)));
    }
    for (const tool of tools) if (!registry.has(tool.name)) registry.register(this.adapt(tool));
  }
}
