import { readBodyText } from "@/server/api/http/body-limit";
import { restRoute } from "@/server/api/rest";
import { env } from "@/server/env";
import { ServiceError } from "@/server/services/errors";

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
  handle: async ({ services, params, request }) => services.agents.save(await yamlOf(request), params.name),
});

async function yamlOf(request: Request): Promise<string> {
  const text = await readBodyText(request, env.MODEX_MAX_SPEC_BYTES); // larger: 413, read no further
  if (!(request.headers.get("content-type") ?? "").includes("json")) return text;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ServiceError("BAD_REQUEST", "the body is not valid JSON: send the YAML itself, or { \"yaml\": \"…\" }");
  }
  const yaml = (body as { yaml?: unknown } | null)?.yaml;
  if (typeof yaml !== "string") throw new ServiceError("BAD_REQUEST", "expected { \"yaml\": \"…\" }");
  return yaml;
}
