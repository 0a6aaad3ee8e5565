"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import type { InstanceStatus } from "@/components/api/contract";
import { useModexClient } from "@/components/api/modex-client";
import { EmptyState } from "@/components/ui/empty-state";
import { ErrorState } from "@/components/ui/error-state";
import { timeAgo } from "@/components/ui/format-time";
import { Skeleton } from "@/components/ui/skeleton";
import { StatusBadge } from "@/components/ui/status-badge";

const FILTERS: readonly (InstanceStatus | "all")[] = ["all", "running", "paused", "completed", "failed", "stopped", "crashed"];

/** Every instance, newest activity first, filtered by status; statuses refresh every 2 s. */
export function InstanceList() {
  const client = useModexClient();
  const router = useRouter();
  const params = useSearchParams();
  const filter = (params.get("status") ?? "all") as InstanceStatus | "all";
  const graph = params.get("graph");
  const list = useQuery({
    queryKey: ["instances", "list", filter],
    queryFn: () => client.instances.list.query({ status: filter === "all" ? undefined : filter, limit: 200 }),
    refetchInterval: 2_000,
  });
  const rows = (list.data ?? []).filter((r) => !graph || r.graphName === graph);

  const setFilter = (f: string) => {
    const next = new URLSearchParams(params);
    if (f === "all") next.delete("status");
    else next.set("status", f);
    router.replace(`/instances${next.size ? `?${next}` : ""}`);
  };

  return (
    <main className="mx-auto max-w-6xl px-6 py-10">
      <h1 className="text-2xl font-semibold tracking-tight text-white">Instances</h1>
      <p className="mt-1 text-sm text-zinc-400">Runs of your graphs, live. Open one to watch it, answer it, pause or resume it.</p>

      <div className="mt-6 flex flex-wrap items-center gap-1" role="tablist" aria-label="Filter by status">
        {FILTERS.map((f) => (
          <button
            key={f}
            type="button"
            role="tab"
            aria-selected={filter === f}
            onClick={() => setFilter(f)}
            className={`rounded-md px-3 py-1.5 text-xs font-medium capitalize ${filter === f ? "bg-white/10 text-white" : "text-zinc-400 hover:bg-white/5 hover:text-zinc-100"}`}
          >
            {f}
          </button>
        ))}
        {graph && (
          <Link href={filter === "all" ? "/instances" : `/instances?status=${filter}`} className="ml-3 rounded-full border border-white/15 px-2.5 py-1 text-xs text-zinc-300 hover:bg-white/5">
            graph: {graph} ✕
          </Link>
        )}
      </div>

      <div className="mt-4">
        {list.isPending ? (
          <div className="space-y-2">{[1, 2, 3, 4, 5].map((i) => <Skeleton key={i} className="h-12" />)}</div>
        ) : list.isError ? (
          <ErrorState title="Could not load the instances" error={list.error} onRetry={() => void list.refetch()} />
        ) : rows.length === 0 ? (
          <EmptyState
            title={filter === "all" && !graph ? "No runs yet" : "No runs match this filter"}
            action={
              <Link href="/graphs" className="rounded-lg bg-indigo-500 px-3.5 py-1.5 text-sm font-semibold text-white hover:bg-indigo-400">
                Open a graph to run it
              </Link>
            }
          >
            {filter === "all" && !graph ? "Open a graph and press Run: its instance shows up here, live." : "Try another status, or clear the filter."}
          </EmptyState>
        ) : (
          <div className="overflow-hidden rounded-xl border border-white/10">
            <table className="w-full text-left text-sm">
              <thead className="border-b border-white/10 bg-white/[0.02] text-xs uppercase tracking-wide text-zinc-500">
                <tr>
                  <th className="px-4 py-2.5 font-medium">Graph</th>
                  <th className="px-4 py-2.5 font-medium">Instance</th>
                  <th className="px-4 py-2.5 font-medium">Status</th>
                  <th className="px-4 py-2.5 text-right font-medium">Version</th>
                  <th className="px-4 py-2.5 font-medium">Started</th>
                  <th className="px-4 py-2.5 font-medium">Last activity</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-white/5">
                {rows.map((r) => (
                  <tr key={r.instanceId} data-testid="instance-row" className="group cursor-pointer hover:bg-white/[0.03]" onClick={() => router.push(`/instances/${encodeURIComponent(r.instanceId)}`)}>
                    <td className="px-4 py-3 font-semibold text-zinc-100">{r.graphName}</td>
                    <td className="px-4 py-3">
                      <Link href={`/instances/${encodeURIComponent(r.instanceId)}`} className="font-mono text-xs text-zinc-400 group-hover:text-indigo-300">
                        {r.instanceId}
                      </Link>
                    </td>
                    <td className="px-4 py-3">
                      <StatusBadge status={r.status} label={r.waiting ? "waiting for input" : undefined} />
                    </td>
                    <td className="px-4 py-3 text-right tabular-nums text-zinc-300">{r.version}</td>
                    <td className="px-4 py-3 text-zinc-400">{timeAgo(r.createdAt)}</td>
                    <td className="px-4 py-3 text-zinc-400">{timeAgo(r.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </main>
  );
}
