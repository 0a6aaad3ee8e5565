import { renderTable } from "./table.mjs";

/** `modexctl cluster`: GET /api/cluster as a compact table (see server/services/cluster-status.ts for the fields). */
export function renderCluster(status) {
  if (status.mode === "single") {
    const p = status.process;
    return [
      `single process (SQLite): ${p.host}:${p.pid} serves the app and runs every instance (${p.running} running now)`,
      "to scale out: DATABASE_URL=postgresql://… on every process, MODEX_ROLE=web for web processes, `npm run worker` for each worker",
    ].join("\n");
  }
  const table = renderTable(status.processes, [
    { title: "ROLE", key: "role" },
    { title: "PROCESS", value: (p) => (p.self ? `${p.id} *` : p.id) },
    { title: "HOST:PID", value: (p) => (p.host === null ? "-" : `${p.host}:${p.pid}`) },
    { title: "HEARTBEAT", value: (p) => (p.heartbeatAgeMs === null ? "none" : `${(p.heartbeatAgeMs / 1000).toFixed(1)} s ago`) },
    { title: "STATE", value: (p) => (p.expired ? "EXPIRED" : "live") },
    { title: "LEASES", key: "leases" },
    { title: "EXPIRED LEASES", key: "expiredLeases" },
  ]);
  const { leases, queue } = status;
  return [
    table,
    `leases: ${leases.held} held, ${leases.expired} expired (waiting for the sweeper), ${leases.waiting} waiting for a worker`,
    `queue: ${queue.queued} queued (${queue.due} due now), ${queue.active} active`,
    "* the process that answered",
  ].join("\n");
}
