import { NextResponse, type NextRequest } from "next/server";
import { env } from "@/server/env";
import { AuthService } from "@/server/services/auth-service";

/**
 * Sends unauthenticated page visits to /login (a convenience for people: the real checks are in every
 * API route, which answer 401 on their own). Next 16 runs proxy.ts on the Node.js runtime, so it reads
 * the same token as the server and verifies the session cookie's signature.
 */
let auth: AuthService | null = null;

export function proxy(request: NextRequest): NextResponse {
  auth ??= AuthService.fromDataDir({ tokenFile: env.tokenFile, envToken: env.MODEX_TOKEN });
  if (auth.authenticate(request.headers)) return NextResponse.next();
  const login = new URL("/login", request.url);
  const next = `${request.nextUrl.pathname}${request.nextUrl.search}`;
  if (next !== "/") login.searchParams.set("next", next);
  return NextResponse.redirect(login);
}

export const config = {
  // Pages only: not the API (it answers 401 itself), the login page, Next's assets or files with an extension.
  matcher: ["/((?!api/|_next/|login|favicon\\.ico|.*\\.[A-Za-z0-9]+$).*)"],
};
