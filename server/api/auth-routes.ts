import "server-only";
import { z } from "zod";
import type { AppServices } from "@/server/services/app-services";
import { getAppServices } from "@/server/services/app-services-singleton";
import { clearedSessionCookie, isCrossOriginWrite, sessionCookie } from "@/server/services/auth-service";
import { errorResponse, json } from "./rest";

/**
 * Login and logout. The token (printed as a login URL at start-up, kept in the data directory) is
 * traded for an httpOnly, SameSite=Lax session cookie. Handlers take their services as an argument so
 * tests call them directly; the route files pass the process's services.
 */

const LoginBody = z.object({ token: z.string().min(1) });

const isHttps = (request: Request) =>
  new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";

/** Only same-site relative paths: never an open redirect. */
function safeNext(next: string | null): string {
  return next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/";
}

function withSession(response: Response, services: AppServices, request: Request): Response {
  const session = services.auth.createSession();
  response.headers.append("set-cookie", sessionCookie(session.value, session.maxAgeSeconds, isHttps(request)));
  return response;
}

/** POST /api/auth/login {token} → 200 {ok} + cookie; 401 on a wrong token; 400 on a bad body. */
export async function loginWithBody(request: Request, services: AppServices = getAppServices()): Promise<Response> {
  if (isCrossOriginWrite(request.method, request.headers)) return errorResponse(403, "FORBIDDEN", "cross-origin request refused");
  let data: unknown;
  try {
    data = await request.json();
  } catch {
    return errorResponse(400, "BAD_REQUEST", "the body is not valid JSON", [{ path: [], message: "invalid JSON" }]);
  }
  const parsed = LoginBody.safeParse(data);
  if (!parsed.success) {
    return errorResponse(400, "BAD_REQUEST", "invalid arguments", parsed.error.issues.map((i) => ({ path: i.path, message: i.message })));
  }
  if (!services.auth.verifyToken(parsed.data.token)) return errorResponse(401, "UNAUTHORIZED", "wrong token");
  return withSession(json({ ok: true }), services, request);
}

/**
 * GET /api/auth/login?token=…&next=/path — the login URL printed at start-up (as Jupyter does):
 * sets the cookie and redirects to `next`; a wrong token goes to the login page.
 */
export function loginWithLink(request: Request, services: AppServices = getAppServices()): Response {
  const url = new URL(request.url);
  const next = safeNext(url.searchParams.get("next"));
  if (!services.auth.verifyToken(url.searchParams.get("token"))) {
    return redirect(`/login?error=invalid&next=${encodeURIComponent(next)}`);
  }
  return withSession(redirect(next), services, request);
}

/** POST /api/auth/logout → clears the cookie. */
export function logout(request: Request): Response {
  if (isCrossOriginWrite(request.method, request.headers)) return errorResponse(403, "FORBIDDEN", "cross-origin request refused");
  return json({ ok: true }, 200, { "set-cookie": clearedSessionCookie() });
}

/** GET /api/auth/session → {authenticated} (public: the login page asks it). */
export function session(request: Request, services: AppServices = getAppServices()): Response {
  const auth = services.auth.authenticate(request.headers);
  return json({ authenticated: !!auth, via: auth?.via ?? null });
}

/** Relative Location: correct behind any proxy or host name. */
function redirect(location: string): Response {
  return new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } });
}
