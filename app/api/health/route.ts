import { readHealth } from "@/server/api/routers/health";

/** Plain JSON health check for load balancers, the CLI and Playwright's webServer wait; `service: "modex"`
 * is how modexctl recognises a Modex server. */
export const dynamic = "force-dynamic";

export function GET(): Response {
  return Response.json(readHealth(), { headers: { "cache-control": "no-store" } });
}
