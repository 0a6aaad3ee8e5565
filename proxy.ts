import { NextResponse, type NextRequest } from "next/server";
import { isAllowedHost } from "@/server/api/http/allowed-hosts";
import { newNonce, pageContentSecurityPolicy } from "@/server/api/http/content-security-policy";
import { env } from "@/server/env";
import { AuthService, requestHost } from "@/server/services/auth-service";

/**
 * Every page visit passes here (API routes guard themselves: see server/api/http/request-guard.ts, and
 * running this for them would make Next.js buffer every request body before the route sees it):
 *
 * 1. a Host outside the allowed names (DNS rebinding) → 421;
 * 2. no session → a redirect to /login (a convenience for people: every API route answers 401 itself);
 * 3. the page's Content-Security-Policy with a nonce for this response, and `private, no-store`: pages
 *    are rendered per request (the nonce must be in them) and are never cached.
 *
 * Next 16 runs proxy.ts on the Node.js runtime, so it reads the same token and the same revoked-session
 * list as the route handlers (its own AuthService: Next bundles this file apart from them).
 */
let auth: AuthService | null = null;
const trustProxy = env.MODEX_TRUST_PROXY === "on";

export async function proxy(request: NextRequest): Promise<NextResponse> {
  const host = requestHost(request.headers, trustProxy);
  if (!isAllowedHost(host, env.MODEX_ALLOWED_HOSTS)) {
    const message = `This server does not answer to the host name "${host ?? ""}": add it to MODEX_ALLOWED_HOSTS (localhost, 127.0.0.1 and [::1] are always allowed).\n`;
    return new NextResponse(message, { status: 421, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "private, no-store" } });
  }
  const { pathname, search } = request.nextUrl;
  if (pathname !== "/login" && !(await signedIn(request))) {
    const login = new URL("/login", request.url);
    if (`${pathname}${search}` !== "/") login.searchParams.set("next", `${pathname}${search}`);
    return withPageHeaders(NextResponse.redirect(login), null);
  }
  const nonce = newNonce();
  const policy = pageContentSecurityPolicy({ nonce, development: env.NODE_ENV === "development" });
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", policy); // where Next.js finds the nonce for its scripts
  return withPageHeaders(NextResponse.next({ request: { headers } }), policy);
}

async function signedIn(request: NextRequest): Promise<boolean> {
  // The services' own AuthService once they run (on PostgreSQL its revocations are the database's);
  // the same token and revocation file otherwise.
  auth ??= (globalThis as { modexServices?: { auth: AuthService } }).modexServices?.auth ?? AuthService.fromDataDir({ tokenFile: env.tokenFile, envToken: env.MODEX_TOKEN, revocationsFile: env.revokedSessionsFile });
  return (await auth.authenticate(request.headers)) !== null;
}

function withPageHeaders(response: NextResponse, policy: string | null): NextResponse {
  if (policy) response.headers.set("content-security-policy", policy);
  response.headers.set("cache-control", "private, no-store");
  return response;
}

export const config = {
  // Pages only: not the API, Next's assets or files with an extension.
  matcher: ["/((?!api/|_next/|favicon\\.ico|.*\\.[A-Za-z0-9]+$).*)"],
};
