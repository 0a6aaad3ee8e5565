"use client";

import { useQuery } from "@tanstack/react-query";
import { useModexClient } from "@/components/api/modex-client";
import { ClusterProcessRow } from "@/components/cluster/cluster-process-row";
import { ClusterSummary } from "@/components/cluster/cluster-summary";
import { EmptyState } from "@/components/ui/empty-state";
import { ErrorState } from "@/components/ui/error-state";
import { Skeleton } from "@/components/ui/skeleton";
import type { RouterOutputs } from "@/server/api/root";

type ClusterStatusView = RouterOutputs["cluster"]["status"];

/** Refreshed this often: heartbeats come every third of the lease (default 10 s), so ages stay readable. */
const REFRESH_MS = 3_000;

/** The processes serving and running this app: a PostgreSQL cluster's web processes and workers, or the one SQLite process. */
export function ClusterPage() {
  const client = useModexClient();
  const status = useQuery({ queryKey: ["cluster"], queryFn: () => client.cluster.status.query(), refetchInterval: REFRESH_MS });

  return (
    <main data-testid="cluster-page" className="mx-auto max-w-6xl px-6 py-10">
      <h1 className="text-2xl font-semibold tracking-tight text-white">Cluster</h1>
      <p className="mt-1 text-sm text-zinc-400">The processes that serve this app and run its instances, their heartbeats and leases, and the work waiting for them.</p>
      {status.isPending ? (
        <div className="mt-6 space-y-2" aria-label="Loading the cluster">
          {[0, 1, 2].map((i) => (
            <Skeleton key={i} className="h-12" />
          ))}
        </div>
      ) : status.isError ? (
        <div className="mt-6">
          <ErrorState title="Could not read the cluster" error={status.error} onRetry={() => void status.refetch()} />
        </div>
      ) : status.data.mode === "single" ? (
        <SingleProcess status={status.data} />
      ) : (
        <Cluster status={status.data} />
      )}
    </main>
  );
}

function SingleProcess({ status }: { status: Extract<ClusterStatusView, { mode: "single" }> }) {
  const p = status.process;
  return (
    <div data-testid="cluster-single" className="mt-6 space-y-4">
      <div className="rounded-xl border border-white/10 bg-white/[0.02] px-5 py-4 text-sm text-zinc-300">
        <p className="font-semibold text-zinc-100">One process runs everything (SQLite).</p>
        <p className="mt-1">
          <code className="text-zinc-200">{p.host}:{p.pid}</code> serves the app and runs its instances:{" "}
          <span data-testid="cluster-single-running" className="tabular-nums text-zinc-100">{p.running}</span> running now.
        </p>
      </div>
      <div className="rounded-xl border border-dashed border-white/15 px-5 py-4 text-sm leading-6 text-zinc-400">
        <p className="font-semibold text-zinc-200">To scale out</p>
        <p>
          Point every process at one PostgreSQL database with <code className="text-zinc-300">DATABASE_URL=postgresql://…</code> and the same{" "}
          <code className="text-zinc-300">MODEX_TOKEN</code>; run web processes with <code className="text-zinc-300">MODEX_ROLE=web</code> and as many
          workers as you need with <code className="text-zinc-300">npm run worker</code>. This page then lists each of them, the instances it runs and the
          queued work (README: PostgreSQL: web processes and workers beyond one machine).
        </p>
      </div>
    </div>
  );
}

function Cluster({ status }: { status: Extract<ClusterStatusView, { mode: "cluster" }> }) {
  return (
    <div data-testid="cluster-status">
      <ClusterSummary status={status} />
      {status.processes.length === 0 ? (
        <div className="mt-6">
          <EmptyState title="No process has a heartbeat">Start a worker with npm run worker; web processes and workers appear here within a heartbeat.</EmptyState>
        </div>
      ) : (
        <table className="mt-6 w-full text-left text-sm">
          <thead className="text-xs uppercase tracking-wide text-zinc-500">
            <tr>
              <th className="py-2 pr-4 font-medium">Role</th>
              <th className="py-2 pr-4 font-medium">Process</th>
              <th className="py-2 pr-4 font-medium">Host:pid</th>
              <th className="py-2 pr-4 text-right font-medium">Heartbeat</th>
              <th className="py-2 pr-4 font-medium">State</th>
              <th className="py-2 pr-4 text-right font-medium">Leases</th>
              <th className="py-2 text-right font-medium">Expired leases</th>
            </tr>
          </thead>
          <tbody>
            {status.processes.map((p) => (
              <ClusterProcessRow key={p.id} process={p} />
            ))}
          </tbody>
        </table>
      )}
      <p className="mt-4 text-xs text-zinc-500">
        A process whose heartbeat expired is dead for the cluster: the sweeper requeues its expired leases, and a live worker recovers those instances from the ledger.
      </p>
    </div>
  );
}
