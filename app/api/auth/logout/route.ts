import { logout } from "@/server/api/auth-routes";

export const dynamic = "force-dynamic";

export const POST = (request: Request) => logout(request);
