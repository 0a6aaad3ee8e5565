import "server-only";
import { env } from "@/server/env";
import { ServiceError } from "@/server/services/errors";
import { formatBytes, readBodyText } from "./body-limit";
import { errorResponse } from "../rest";

/**
 * The YAML a request carries (a spec, an agent definition), or the 413 refusing it: the body is the
 * YAML itself (application/yaml, text/yaml, text/plain, …), or JSON `{ "yaml": "…" }`. As for tRPC
 * specs.save: the YAML up to MODEX_MAX_SPEC_BYTES, and JSON carrying it up to twice that, for its
 * escaping; a larger body is read no further.
 */
export async function yamlBodyOf(request: Request, what = "definition"): Promise<string | Response> {
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
    return errorResponse(413, "PAYLOAD_TOO_LARGE", `the ${what}'s YAML is ${formatBytes(bytes)}; at most ${formatBytes(env.MODEX_MAX_SPEC_BYTES)} is accepted (MODEX_MAX_SPEC_BYTES)`);
  }
  return yaml;
}
