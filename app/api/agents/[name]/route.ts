import { formatBytes, readBodyText } from "@/server/api/http/body-limit";
import { errorResponse, restRoute } from "@/server/api/rest";
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
  handle: async ({ services, params, request }) => {
    const yaml = await yamlOf(request);
    return typeof yaml === "string" ? services.agents.save(yaml, params.name) : yaml;
  },
});

/**
 * The YAML of the body, or the 413 refusing it. As for a spec (tRPC specs.save): the YAML up to
 * MODEX_MAX_SPEC_BYTES, and JSON carrying it up to twice that, for its escaping; larger is read no further.
 */
async function yamlOf(request: Request): Promise<string | Response> {
  const isJson = (request.headers.get("content-type") ?? "").includes("json");
  if (!isJson) return readBodyText(request, env.MODEX_MAX_SPEC_BYTES, "MODEX_MAX_SPEC_BYTES");
  const text = await readBodyText(request, 2 * env.MODEX_MAX_SPEC_BYTES, "twice MODEX_MAX_SPEC_BYTES");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ServiceError("BAD_REQUEST", "the body is not valid JSON: send the YAML itself, or { \"yaml\": \"…\" }");
  }
  const yaml = (body as { yaml?: unknown } | null)?.yaml;
  if (typeof yaml !== "string") throw new ServiceError("BAD_REQUEST", "expected { \"yaml\": \"…\" }");
  const bytes = Buffer.byteLength(yaml);
  if (bytes > env.MODEX_MAX_SPEC_BYTES) {
    return errorResponse(413, "PAYLOAD_TOO_LARGE", `the definition's YAML is ${formatBytes(bytes)}; at most ${formatBytes(env.MODEX_MAX_SPEC_BYTES)} is accepted (MODEX_MAX_SPEC_BYTES)`);
  }
  return yaml;
}
