import { loginWithBody, loginWithLink } from "@/server/api/auth-routes";

export const dynamic = "force-dynamic";

/** POST {token} → session cookie. GET ?token=&next= → the start-up login link: cookie + redirect. */
export const POST = (request: Request) => loginWithBody(request);
export const GET = (request: Request) => loginWithLink(request);
