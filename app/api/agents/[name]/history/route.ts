import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** GET /api/agents/{name}/history — every revision of the agent, newest first (id, time, size; without their YAML). */
export const GET = restRoute({
  handle: ({ services, params }) => services.agents.history(params.name),
});
