"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { ReactNode } from "react";
import type { InstanceStatus } from "@/components/api/contract";
import { useModexClient } from "@/components/api/modex-client";
import { CopyButton } from "@/components/shell/copy-button";
import { timestamp } from "@/components/ui/format-time";
import { Skeleton } from "@/components/ui/skeleton";
import { rowLabel, rowTitle, StatusBadge } from "@/components/ui/status-badge";
import { LocalTime } from "@/components/ui/local-time";
import type { QueuedWork } from "@/shared/queued-work";

/** What the home page reads of an instance row. */
interface HomeRun {
  instanceId: string;
  graphName: string;
  status: InstanceStatus;
  waiting: boolean;
  waitKind: "input" | "approval" | null;
  /** A cluster: accepted work no worker has started yet. */
  queued: QueuedWork | null;
  updatedAt: number;
}

const RECENT = 6;
const WAITING = 5;

/** The rows of `instances.list`, whether it answers a plain array or a page (`{ items }`). */
function rowsOf(data: unknown): HomeRun[] {
  const rows = Array.isArray(data) ? data : ((data as { items?: unknown[] } | undefined)?.items ?? []);
  return rows as HomeRun[];
}

/**
 * The home page's picture once there is something real to show: the runs waiting for a person, then
 * the most recent runs, live (refreshed every 5 s). With no run yet (a fresh install), `placeholder`
 * (the illustration of a run) is shown instead.
 */
export function HomeRuns({ placeholder }: { placeholder: ReactNode }) {
  const client = useModexClient();
  const list = useQuery({ queryKey: ["home", "runs"], queryFn: () => client.instances.list.query({ limit: 100 }), refetchInterval: 5_000 });
  if (list.isPending) return <Skeleton className="h-64 rounded-2xl" />;
  const rows = list.isError ? [] : rowsOf(list.data);
  if (rows.length === 0) return <>{placeholder}</>;
  // A run whose answer or decision is queued for a worker (a cluster) waits for nobody any more.
  const waiting = rows.filter((r) => r.waiting && !r.queued).slice(0, WAITING);
  const recent = rows.slice(0, RECENT);
  return (
    <div data-testid="home-runs" className="space-y-4">
      {waiting.length > 0 && (
        <RunPanel title="Waiting for you" testId="home-waiting" tone="amber" runs={waiting} hint="These runs ask a person for input or an approval: open one to answer." />
      )}
      <RunPanel title="Recent runs" testId="home-recent" runs={recent} footer={<Link href="/instances" className="text-xs font-semibold text-indigo-300 hover:text-indigo-200">All instances →</Link>} />
    </div>
  );
}

function RunPanel({ title, testId, runs, hint, footer, tone }: { title: string; testId: string; runs: HomeRun[]; hint?: string; footer?: ReactNode; tone?: "amber" }) {
  return (
    <section aria-label={title} data-testid={testId} className={`rounded-2xl border p-4 ${tone === "amber" ? "border-amber-400/30 bg-amber-400/[0.04]" : "border-white/10 bg-white/[0.02]"}`}>
      <div className="mb-2 flex items-baseline justify-between gap-3 px-1">
        <h2 className={`text-sm font-semibold ${tone === "amber" ? "text-amber-200" : "text-white"}`}>{title}</h2>
        {footer}
      </div>
      {hint && <p className="mb-2 px-1 text-xs text-zinc-400">{hint}</p>}
      <ul className="divide-y divide-white/5">
        {runs.map((r) => (
          <li key={r.instanceId} data-testid="home-run" data-instance={r.instanceId} data-queued={r.queued?.kind} className="flex items-center gap-3 px-1 py-2 text-sm">
            <Link href={`/instances/${encodeURIComponent(r.instanceId)}`} className="min-w-0 flex-1 truncate font-medium text-zinc-100 hover:text-indigo-300">
              {r.graphName} <span className="font-mono text-xs text-zinc-500">{r.instanceId}</span>
            </Link>
            <CopyButton value={r.instanceId} label="Copy id" />
            {/* A column as wide as the widest badge, so the Copy id buttons line up row under row. */}
            <span className="flex w-40 shrink-0 justify-end">
              <StatusBadge status={r.status} label={rowLabel(r)} title={rowTitle(r)} />
            </span>
            <LocalTime at={r.updatedAt} format="ago" title={timestamp(r.updatedAt)} className="w-20 shrink-0 text-right text-xs text-zinc-500" />
          </li>
        ))}
      </ul>
    </section>
  );
}
