import { directRoute } from "@/server/api/http/direct-routes";
import { readHealth } from "@/server/api/routers/health";

/** Plain JSON health check for load balancers, the CLI and Playwright's webServer wait; `service: "modex"`
 * is how modexctl recognises a Modex server. The production server answers it without Next.js once this
 * module is loaded (direct-routes.ts): a health check is not queued behind Next.js's handling of a burst. */
export const dynamic = "force-dynamic";

export const GET = directRoute("GET", "/api/health", (): Response => Response.json(readHealth(), { headers: { "cache-control": "no-store" } }));
