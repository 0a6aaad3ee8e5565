import { readHealth } from "@/server/api/routers/health";

/** Plain JSON health check for load balancers, the CLI and Playwright's webServer wait. */
export const dynamic = "force-dynamic";

export function GET(): Response {
  return Response.json(readHealth(), { headers: { "cache-control": "no-store" } });
}
