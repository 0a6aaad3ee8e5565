import "server-only";
import type { z } from "zod";
import type { AppServices } from "@/server/services/app-services";
import { getAppServices } from "@/server/services/app-services-singleton";
import { env } from "@/server/env";
import type { AuthResult } from "@/server/services/auth-service";
import { isServiceError, toServiceError } from "@/server/services/errors";
import { httpStatusOf, schemaIssuesOf } from "./service-error-mapping";
import { isBodyTooLarge, readBodyText } from "./http/body-limit";
import { holdsNul, jsonTextMessage, jsonTextProblem } from "./http/json-text";
import { refuseUntrustedRequest } from "./http/request-guard";

/**
 * The REST routes under /api/graphs are thin like the tRPC routers: one `restRoute` per handler, a
 * zod schema for the body or the query, one service call. Every route runs the same guard chain:
 * unknown Host → 421, cross-origin write → 403, no credentials → 401, a body over
 * MODEX_MAX_BODY_BYTES → 413, bad JSON (or nested deeper than MODEX_MAX_JSON_DEPTH) or arguments → 400 with issue paths,
 * service errors → their status (service-error-mapping.ts). Error bodies: { error: { code, message, issues? } }.
 */

export interface RestArgs<B, Q> {
  request: Request;
  auth: NonNullable<AuthResult>;
  services: AppServices;
  params: Record<string, string>;
  body: B;
  query: Q;
}

interface RestRouteOptions<B, Q> {
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  /** Success status (default 200). */
  status?: number;
  handle: (args: RestArgs<B, Q>) => unknown;
}

export type RouteContext = { params: Promise<Record<string, string | string[] | undefined>> };

export function restRoute<B = undefined, Q = undefined>(options: RestRouteOptions<B, Q>) {
  return async (request: Request, context?: RouteContext): Promise<Response> => {
    try {
      const refused = refuseUntrustedRequest(request);
      if (refused) return refused;
      const services = getAppServices();
      const auth = await services.auth.authenticate(request.headers);
      if (!auth) {
        return errorResponse(401, "UNAUTHORIZED", "send Authorization: Bearer <token> (see the login URL printed at start-up)");
      }
      const params = Object.fromEntries(
        Object.entries((await context?.params) ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v.join("/") : (v ?? "")]),
      );
      const body = options.body ? await parseBody(request, options.body) : (undefined as B);
      const query = options.query ? parseQuery(request, options.query) : (undefined as Q);
      if (body instanceof Response) return body;
      if (query instanceof Response) return query;
      const result = await options.handle({ request, auth, services, params, body, query });
      // A handler that shapes its own answer (an Idempotency-Key replay, with its header).
      if (result instanceof Response) return result;
      return json(result, options.status ?? 200);
    } catch (error) {
      return errorFrom(error);
    }
  };
}

/** The JSON body, read no further than MODEX_MAX_BODY_BYTES and checked for depth before it is parsed. */
async function parseBody<B>(request: Request, schema: z.ZodType<B>): Promise<B | Response> {
  let text: string;
  try {
    text = await readBodyText(request, env.MODEX_MAX_BODY_BYTES);
  } catch (error) {
    if (!isBodyTooLarge(error)) throw error;
    return errorResponse(413, "PAYLOAD_TOO_LARGE", `${error.message} (MODEX_MAX_BODY_BYTES)`);
  }
  const problem = jsonTextProblem(text, env.MODEX_MAX_JSON_DEPTH);
  if (problem) {
    const message = jsonTextMessage(problem, "the body", env.MODEX_MAX_JSON_DEPTH);
    return errorResponse(400, "BAD_REQUEST", message, [{ path: [], message }]);
  }
  let data: unknown;
  try {
    data = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    return errorResponse(400, "BAD_REQUEST", "the body is not valid JSON", [{ path: [], message: "invalid JSON" }]);
  }
  return validated(schema, data);
}

function parseQuery<Q>(request: Request, schema: z.ZodType<Q>): Q | Response {
  const query = Object.fromEntries(new URL(request.url).searchParams);
  const nul = Object.keys(query).find((k) => holdsNul(k) || holdsNul(query[k]));
  if (nul !== undefined) {
    const message = jsonTextMessage("nul", "the query", env.MODEX_MAX_JSON_DEPTH);
    return errorResponse(400, "BAD_REQUEST", message, [{ path: [nul], message }]);
  }
  return validated(schema, query);
}

function validated<T>(schema: z.ZodType<T>, data: unknown): T | Response {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  return errorResponse(400, "BAD_REQUEST", "invalid arguments", schemaIssuesOf(parsed.error) ?? []);
}

export function json(data: unknown, status = 200, headers: HeadersInit = {}): Response {
  return Response.json(data ?? null, { status, headers: { "cache-control": "private, no-store", ...headers } });
}

export function errorResponse(status: number, code: string, message: string, issues?: unknown): Response {
  return json({ error: { code, message, ...(issues ? { issues } : {}) } }, status);
}

function errorFrom(error: unknown): Response {
  // A handler that reads its own body (readBodyText) past the limit.
  if (isBodyTooLarge(error)) return errorResponse(413, "PAYLOAD_TOO_LARGE", error.message);
  const normalized = toServiceError(error);
  if (isServiceError(normalized)) {
    return errorResponse(httpStatusOf(normalized.code), normalized.code, normalized.message, normalized.details?.issues);
  }
  console.error("[rest]", error);
  return errorResponse(500, "INTERNAL_SERVER_ERROR", "internal error");
}
