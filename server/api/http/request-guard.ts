import "server-only";
import { env } from "@/server/env";
import { isCrossOriginWrite, requestHost } from "@/server/services/auth-service";
import { isAllowedHost } from "./allowed-hosts";

/**
 * The checks every API request passes before anything else: the Host it was sent to is one this server
 * answers (DNS rebinding), and a state-changing request does not come from another origin (CSRF). Page
 * visits get the same Host check in proxy.ts. X-Forwarded-Host counts only with MODEX_TRUST_PROXY=on.
 */
const trustProxy = env.MODEX_TRUST_PROXY === "on";

/** 421 with a message when the Host is not allowed; null when it is. */
export function refuseUnknownHost(request: Request): Response | null {
  // Next.js builds request.url from the Host header; a Request made in a test may carry the URL only.
  const host = requestHost(request.headers, trustProxy) ?? new URL(request.url).host;
  if (isAllowedHost(host, env.MODEX_ALLOWED_HOSTS)) return null;
  return refusal(
    421,
    "MISDIRECTED_REQUEST",
    `this server does not answer to the host name ${JSON.stringify(host ?? "")}: add it to MODEX_ALLOWED_HOSTS (localhost, 127.0.0.1 and [::1] are always allowed)`,
  );
}

/** The Host check, then 403 for a cross-origin write; null when the request may go on. */
export function refuseUntrustedRequest(request: Request): Response | null {
  const unknownHost = refuseUnknownHost(request);
  if (unknownHost) return unknownHost;
  if (isCrossOriginWrite(request.method, request.headers, { trustProxy })) {
    return refusal(403, "FORBIDDEN", "cross-origin request refused");
  }
  return null;
}

/** The REST error body ({ error: { code, message } }), which every client of the API already reads. */
export function refusal(status: number, code: string, message: string, headers: HeadersInit = {}): Response {
  return Response.json({ error: { code, message } }, { status, headers: { "cache-control": "private, no-store", ...headers } });
}
