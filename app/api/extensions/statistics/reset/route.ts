import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** POST /api/extensions/statistics/reset — zeroes this process's extension statistics; answers GET /api/extensions' report as it now is. */
export const POST = restRoute({
  handle: ({ services }) => services.extensions.resetStatistics(),
});
