import { yamlBodyOf } from "@/server/api/http/yaml-body";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** GET /api/agents/{name} — the latest revision of an agent, with its YAML (a revision id works too). */
export const GET = restRoute({
  handle: ({ services, params }) => services.agents.get(params.name),
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
