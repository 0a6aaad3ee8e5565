import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/**
 * GET /api/cluster — on PostgreSQL `{ mode: "cluster", at, processes, leases, queue }`: every process's
 * role, id, host, pid, heartbeat age, whether it expired, the leases it holds and those expired; lease
 * totals (held, expired awaiting the sweeper, requeued); the work queue (queued, due, active). On SQLite
 * `{ mode: "single", at, process }`: this process runs everything. See server/services/cluster-status.ts.
 */
export const GET = restRoute({
  handle: ({ services }) => services.clusterStatus.read(),
});
