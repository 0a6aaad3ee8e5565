import { session } from "@/server/api/auth-routes";

export const dynamic = "force-dynamic";

export const GET = (request: Request) => session(request);
