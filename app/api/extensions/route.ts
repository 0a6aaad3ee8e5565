import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/**
 * GET /api/extensions — the extensions folder (`dir`), every extension (name, points, priority, enabled,
 * source, calls, failures, vetoes, timeMs, counters: summed over every process since the last reset) and the modules that failed to load ({ file, message }).
 */
export const GET = restRoute({
  handle: ({ services }) => services.extensions.report(),
});
