import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/**
 * GET /api/agents — the latest revision of every named agent, the tool catalog their `tools:` pick from,
 * and each MCP server (config/mcp) with its state.
 */
export const GET = restRoute({
  handle: async ({ services }) => ({ agents: await services.agents.list(), tools: services.agents.tools(), mcpServers: services.agents.mcpServers() }),
});
