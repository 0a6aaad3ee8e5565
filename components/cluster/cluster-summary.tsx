import type { ReactNode } from "react";
import type { RouterOutputs } from "@/server/api/root";

type ClusterView = Extract<RouterOutputs["cluster"]["status"], { mode: "cluster" }>;

function Figure({ label, value, testId, warn, children }: { label: string; value: number; testId: string; warn?: boolean; children?: ReactNode }) {
  return (
    <div className="rounded-xl border border-white/10 bg-white/[0.02] px-4 py-3">
      <p className="text-xs uppercase tracking-wide text-zinc-500">{label}</p>
      <p data-testid={testId} className={`mt-1 text-xl font-semibold tabular-nums ${warn && value > 0 ? "text-amber-300" : "text-white"}`}>
        {value}
      </p>
      {children && <p className="mt-0.5 text-xs text-zinc-500">{children}</p>}
    </div>
  );
}

/** The cluster at a glance: live processes, the instance leases, the work queue. */
export function ClusterSummary({ status }: { status: ClusterView }) {
  const live = status.processes.filter((p) => !p.expired);
  const workers = live.filter((p) => p.role !== "web").length;
  return (
    <div className="mt-6 grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6">
      <Figure label="Live processes" value={live.length} testId="cluster-live">
        {workers === 0 ? <span className="text-amber-300">no live worker: nothing runs</span> : `${workers} of them run instances`}
      </Figure>
      <Figure label="Leases held" value={status.leases.held} testId="cluster-leases-held">
        instances running
      </Figure>
      <Figure label="Leases expired" value={status.leases.expired} testId="cluster-leases-expired" warn>
        waiting for the sweeper
      </Figure>
      <Figure label="Leases due" value={status.leases.waiting} testId="cluster-leases-waiting">
        waiting for a worker
      </Figure>
      <Figure label="Jobs queued" value={status.queue.queued} testId="cluster-queue-queued">
        {status.queue.due} due now
      </Figure>
      <Figure label="Jobs active" value={status.queue.active} testId="cluster-queue-active">
        fetched by a worker
      </Figure>
    </div>
  );
}
