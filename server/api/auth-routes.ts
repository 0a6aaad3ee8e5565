import "server-only";
import { z } from "zod";
import type { AppServices } from "@/server/services/app-services";
import { env } from "@/server/env";
import { getAppServices } from "@/server/services/app-services-singleton";
import { clearedSessionCookie, readCookie, SESSION_COOKIE, sessionCookie } from "@/server/services/auth-service";
import { isBodyTooLarge, readBodyText } from "./http/body-limit";
import { clientAddressIsStamped } from "./http/client-address.mjs";
import { clientKey, LoginRateLimiter } from "./http/login-rate-limit";
import { refusal, refuseUntrustedRequest } from "./http/request-guard";
import { safeNextPath } from "./http/safe-next";
import { errorResponse, json } from "./rest";

/**
 * Login and logout. The token (printed as a login URL at start-up, kept in the data directory) is
 * traded for an httpOnly, SameSite=Lax session cookie. Handlers take their services as an argument so
 * tests call them directly; the route files pass the process's services.
 */

const LoginBody = z.object({ token: z.string().min(1) });
/** A login body is a token in JSON: anything longer is not one. */
const LOGIN_BODY_LIMIT = 4096;

const trustProxy = env.MODEX_TRUST_PROXY === "on";

// One limiter per process: kept on globalThis because Next.js may evaluate this module more than once.
const holder = globalThis as typeof globalThis & { modexLoginLimiter?: LoginRateLimiter };
const limiter = (holder.modexLoginLimiter ??= new LoginRateLimiter());

const isHttps = (request: Request) =>
  new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";

/** 429 with Retry-After while this client (or every client together) has failed too often. */
function rateLimited(request: Request): Response | null {
  const wait = limiter.retryAfterSeconds(clientKey(request.headers, { trustProxy, stamped: clientAddressIsStamped() }));
  if (wait === null) return null;
  return refusal(429, "TOO_MANY_REQUESTS", `too many failed sign-ins: try again in ${wait} s`, { "retry-after": String(wait) });
}

/** Checks the token, counting a wrong one against the client. */
function tokenAccepted(request: Request, services: AppServices, token: string | null): boolean {
  if (services.auth.verifyToken(token)) return true;
  limiter.recordFailure(clientKey(request.headers, { trustProxy, stamped: clientAddressIsStamped() }));
  return false;
}

function withSession(response: Response, services: AppServices, request: Request): Response {
  const session = services.auth.createSession();
  response.headers.append("set-cookie", sessionCookie(session.value, session.maxAgeSeconds, isHttps(request)));
  return response;
}

/** POST /api/auth/login {token} → 200 {ok} + cookie; 401 on a wrong token; 400 on a bad body. */
export async function loginWithBody(request: Request, services: AppServices = getAppServices()): Promise<Response> {
  const refused = refuseUntrustedRequest(request) ?? rateLimited(request);
  if (refused) return refused;
  let data: unknown;
  try {
    data = JSON.parse(await readBodyText(request, LOGIN_BODY_LIMIT));
  } catch (error) {
    if (isBodyTooLarge(error)) return errorResponse(413, "PAYLOAD_TOO_LARGE", `${error.message}: a login body holds a token only`);
    return errorResponse(400, "BAD_REQUEST", "the body is not a JSON object with a token", [{ path: [], message: "invalid JSON" }]);
  }
  const parsed = LoginBody.safeParse(data);
  if (!parsed.success) {
    return errorResponse(400, "BAD_REQUEST", "invalid arguments", parsed.error.issues.map((i) => ({ path: i.path, message: i.message })));
  }
  if (!tokenAccepted(request, services, parsed.data.token)) return errorResponse(401, "UNAUTHORIZED", "wrong token");
  return withSession(json({ ok: true }), services, request);
}

/**
 * GET /api/auth/login?token=…&next=/path — the login URL printed at start-up (as Jupyter does):
 * sets the cookie and redirects to `next` (a path on this origin, else `/`); a wrong token goes to the
 * login page.
 */
export function loginWithLink(request: Request, services: AppServices = getAppServices()): Response {
  const refused = refuseUntrustedRequest(request) ?? rateLimited(request);
  if (refused) return refused;
  const url = new URL(request.url);
  const next = safeNextPath(url.searchParams.get("next"));
  if (!tokenAccepted(request, services, url.searchParams.get("token"))) {
    return redirect(`/login?error=invalid&next=${encodeURIComponent(next)}`);
  }
  return withSession(redirect(next), services, request);
}

/** POST /api/auth/logout → ends the session on the server (the cookie is refused from now on) and clears it. */
export async function logout(request: Request, services: AppServices = getAppServices()): Promise<Response> {
  const refused = refuseUntrustedRequest(request);
  if (refused) return refused;
  await services.auth.endSession(readCookie(request.headers, SESSION_COOKIE));
  return json({ ok: true }, 200, { "set-cookie": clearedSessionCookie() });
}

/** GET /api/auth/session → {authenticated} (public: the login page asks it). */
export async function session(request: Request, services: AppServices = getAppServices()): Promise<Response> {
  const refused = refuseUntrustedRequest(request);
  if (refused) return refused;
  const auth = await services.auth.authenticate(request.headers);
  return json({ authenticated: !!auth, via: auth?.via ?? null });
}

/** Relative Location: correct behind any proxy or host name. */
function redirect(location: string): Response {
  return new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } });
}
