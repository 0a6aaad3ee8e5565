import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** POST /api/extensions/statistics/reset — zeroes the extension statistics of every process (kept in the database); answers GET /api/extensions' report as it now is. */
export const POST = restRoute({
  handle: ({ services }) => services.extensions.resetStatistics(),
});
