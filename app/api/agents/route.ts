import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** GET /api/agents — the latest revision of every named agent, and the tool catalog their `tools:` pick from. */
export const GET = restRoute({
  handle: ({ services }) => ({ agents: services.agents.list(), tools: services.agents.tools() }),
});
