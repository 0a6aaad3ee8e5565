import { z } from "zod";
import { yamlBodyOf } from "@/server/api/http/yaml-body";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/**
 * GET /api/agents/{name}[?revision=<agentId>] — the latest revision of an agent with its YAML, or the
 * revision asked for (404 if it is another agent's). Without `revision`, a revision id works as {name} too.
 */
export const GET = restRoute({
  query: z.object({ revision: z.string().regex(/^\d+$/, "a revision's agent id (digits)").optional() }),
  handle: ({ services, params, query }) => (query.revision === undefined ? services.agents.get(params.name) : services.agents.revisionOf(params.name, query.revision)),
});

/**
 * PUT /api/agents/{name} — saves a definition (saveIfChanged). The body is the YAML itself, or JSON
 * `{ "yaml": "…" }`; its `name:` must be `{name}`. Answers { agentId, name, created }; a definition that
 * does not validate is 400 with each issue's path, line and column.
 */
export const PUT = restRoute({
  handle: async ({ services, params, request }) => {
    const yaml = await yamlBodyOf(request);
    return typeof yaml === "string" ? services.agents.save(yaml, params.name) : yaml;
  },
});
