import { idempotencyKeyOf } from "@/server/api/idempotent-response";
import { errorResponse, json, type RouteContext } from "@/server/api/rest";
import { isBodyTooLarge, readBodyText } from "@/server/api/http/body-limit";
import { jsonTextMessage, jsonTextProblem } from "@/server/api/http/json-text";
import { refuseUntrustedRequest } from "@/server/api/http/request-guard";
import { httpStatusOf } from "@/server/api/service-error-mapping";
import { env } from "@/server/env";
import { getAppServices } from "@/server/services/app-services-singleton";
import { isServiceError, toServiceError } from "@/server/services/errors";

export const dynamic = "force-dynamic";

/** `?wait=` is at most this many seconds. */
const MAX_WAIT_SECONDS = 60;

/**
 * POST /api/hooks/{name}[?wait=seconds] — starts a run of the hook's spec with the JSON body as input.
 * The one route that takes no Modex token or session: the hook's own secret is its credential, either
 * `X-Modex-Signature: sha256=<HMAC-SHA256(secret, body) hex>` or `Authorization: Bearer <secret>`, as
 * the hook was made. The Host check and the cross-origin check still apply. Order: unknown hook 404,
 * over its rate 429 (every call counts), body over its limit 413 (read no further), bad credential
 * 401, bad JSON 400; then 202 {instanceId, version, status}, or with `wait` the run's outcome (200
 * once it finished or waits for a person, 202 if still running when the wait ends).
 */
export async function POST(request: Request, context: RouteContext): Promise<Response> {
  try {
    const refused = refuseUntrustedRequest(request);
    if (refused) return refused;
    const name = String((await context.params).name ?? "");
    const wait = waitSeconds(request);
    if (wait === null) return errorResponse(400, "BAD_REQUEST", `wait must be a number of seconds from 0 to ${MAX_WAIT_SECONDS}`);
    const { triggers } = getAppServices();
    const hook = await triggers.hooks.admit(name);
    if ("refused" in hook) {
      if (hook.refused === "not_found") return errorResponse(404, "NOT_FOUND", `hook ${name} not found`);
      const message = `hook ${name} is called more often than its rate per minute allows; retry after ${hook.retryAfterSeconds} s`;
      return json({ error: { code: "TOO_MANY_REQUESTS", message } }, 429, { "retry-after": String(hook.retryAfterSeconds) });
    }
    let body: string;
    try {
      body = await readBodyText(request, hook.maxBodyBytes);
    } catch (error) {
      if (isBodyTooLarge(error)) return errorResponse(413, "PAYLOAD_TOO_LARGE", `${error.message} (the hook's limit)`);
      throw error;
    }
    if (!triggers.hooks.authorized(hook, request.headers, body)) {
      const how = hook.auth === "bearer" ? "Authorization: Bearer <the hook's secret>" : "X-Modex-Signature: sha256=<HMAC-SHA256 of the body with the hook's secret, hex>";
      return errorResponse(401, "UNAUTHORIZED", `send ${how}`);
    }
    const input = parseInput(body);
    if (input instanceof Response) return input;
    const { replayed, ...started } = await triggers.start({ spec: hook.spec, input }, idempotencyKeyOf(request), { kind: "webhook", name });
    // A retry with the first call's Idempotency-Key is told so, as on REST create.
    const headers: Record<string, string> = replayed ? { "idempotent-replayed": "true" } : {};
    if (wait === 0) return json({ ...started, hook: name }, 202, headers);
    const outcome = await triggers.outcome(started.instanceId, wait * 1000);
    return json({ ...outcome, version: started.version, hook: name }, outcome.finished ? 200 : 202, headers);
  } catch (error) {
    const normalized = toServiceError(error);
    if (isServiceError(normalized)) return errorResponse(httpStatusOf(normalized.code), normalized.code, normalized.message);
    console.error("[hooks]", error);
    return errorResponse(500, "INTERNAL_SERVER_ERROR", "internal error");
  }
}

function waitSeconds(request: Request): number | null {
  const raw = new URL(request.url).searchParams.get("wait");
  if (raw === null || raw === "") return 0;
  const seconds = Number(raw);
  return Number.isFinite(seconds) && seconds >= 0 && seconds <= MAX_WAIT_SECONDS ? seconds : null;
}

/** The JSON body as the run's input (an empty body: no input). */
function parseInput(body: string): unknown {
  if (body.trim() === "") return undefined;
  const problem = jsonTextProblem(body, env.MODEX_MAX_JSON_DEPTH);
  if (problem) return errorResponse(400, "BAD_REQUEST", jsonTextMessage(problem, "the body", env.MODEX_MAX_JSON_DEPTH));
  try {
    return JSON.parse(body);
  } catch {
    return errorResponse(400, "BAD_REQUEST", "the body is not valid JSON");
  }
}
