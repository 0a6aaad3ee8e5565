import "server-only";
import { TRPCError } from "@trpc/server";
import { env } from "@/server/env";
import { formatBytes, isBodyTooLarge, readBodyText } from "./body-limit";
import { jsonTextMessage, jsonTextProblem, type JsonTextProblem } from "./json-text";

/**
 * The limits of a tRPC request, checked before tRPC reads it: the body (MODEX_MAX_BODY_BYTES, or room
 * for a spec's YAML when every procedure of the request takes one), and its JSON's nesting depth
 * (MODEX_MAX_JSON_DEPTH) and U+0000 characters (json-text.ts), in the body or in a GET's `input`. The route checks the batch size first.
 */

/** The procedures whose input carries a spec's YAML (checked exactly by `limitSpecYaml` in trpc.ts). */
export const SPEC_YAML_PROCEDURES: ReadonlySet<string> = new Set(["specs.save", "specs.validate"]);

/** The procedure paths a tRPC URL names: `/api/trpc/a.b,c.d?batch=1` → ["a.b", "c.d"]. */
export function procedurePaths(url: URL, endpoint: string): string[] {
  const raw = url.pathname.slice(endpoint.length + 1);
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // a malformed escape: tRPC answers NOT_FOUND for it
  }
  return decoded.split(",");
}

/**
 * JSON escapes a YAML text's newlines and quotes (2 bytes each), so the body that carries a spec may be
 * larger than the spec: allow twice its limit here; the YAML's own size is checked exactly later.
 */
function bodyLimitFor(paths: readonly string[]): number {
  return paths.every((p) => SPEC_YAML_PROCEDURES.has(p)) ? Math.max(env.MODEX_MAX_BODY_BYTES, 2 * env.MODEX_MAX_SPEC_BYTES) : env.MODEX_MAX_BODY_BYTES;
}

export type CheckedTrpcRequest = { request: Request; error?: undefined } | { request: Request; error: TRPCError };

/**
 * A request tRPC may read (its body read here once, within the limit), or the error to answer with.
 * On an error the returned request has no body: tRPC reads inputs lazily, so it never reads one.
 */
export async function checkTrpcRequest(req: Request, paths: readonly string[]): Promise<CheckedTrpcRequest> {
  if (req.method !== "POST") {
    const input = new URL(req.url).searchParams.get("input");
    const problem = input ? jsonTextProblem(input, env.MODEX_MAX_JSON_DEPTH) : null;
    return problem ? { request: req, error: refused(problem) } : { request: req };
  }
  const limit = bodyLimitFor(paths);
  let text: string;
  try {
    text = await readBodyText(req, limit);
  } catch (error) {
    if (!isBodyTooLarge(error)) throw error;
    const setting = limit === env.MODEX_MAX_BODY_BYTES ? "MODEX_MAX_BODY_BYTES" : "twice MODEX_MAX_SPEC_BYTES";
    return { request: withBody(req, null), error: new TRPCError({ code: "PAYLOAD_TOO_LARGE", message: `the request body is larger than ${formatBytes(limit)} (${setting})` }) };
  }
  const problem = jsonTextProblem(text, env.MODEX_MAX_JSON_DEPTH);
  if (problem) return { request: withBody(req, null), error: refused(problem) };
  return { request: withBody(req, text) };
}

/** The YAML of a spec input, when it is larger than MODEX_MAX_SPEC_BYTES: the error to throw. */
export function specYamlTooLarge(input: unknown): TRPCError | null {
  const yaml = typeof input === "object" && input !== null ? (input as { yaml?: unknown }).yaml : undefined;
  if (typeof yaml !== "string") return null;
  const bytes = Buffer.byteLength(yaml, "utf8");
  if (bytes <= env.MODEX_MAX_SPEC_BYTES) return null;
  return new TRPCError({
    code: "PAYLOAD_TOO_LARGE",
    message: `the spec's YAML is ${formatBytes(bytes)}; at most ${formatBytes(env.MODEX_MAX_SPEC_BYTES)} is accepted (MODEX_MAX_SPEC_BYTES)`,
  });
}

const refused = (problem: JsonTextProblem) =>
  new TRPCError({ code: "BAD_REQUEST", message: jsonTextMessage(problem, "the input", env.MODEX_MAX_JSON_DEPTH) });

/** The same request with the body already read (or none); its abort signal still ends a subscription. */
function withBody(req: Request, text: string | null): Request {
  const headers = new Headers(req.headers);
  headers.delete("content-length");
  headers.delete("transfer-encoding");
  return new Request(req.url, { method: req.method, headers, body: text ?? "{}", signal: req.signal });
}
