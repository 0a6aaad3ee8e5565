"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { timestamp } from "@/components/ui/format-time";
import type { Health } from "@/server/api/routers/health";

type Status = "pending" | "ok" | "down";

const LOOK: Record<Status, { dot: string; ring: string }> = {
  pending: { dot: "bg-zinc-500", ring: "border-white/10 text-zinc-400" },
  ok: { dot: "bg-emerald-400 shadow-[0_0_8px_var(--color-emerald-400)]", ring: "border-emerald-400/25 text-zinc-200" },
  down: { dot: "bg-amber-400 animate-pulse", ring: "border-amber-400/40 text-amber-200" },
};

/** How often the header asks the server whether it is there: a stopped server shows within ~2 s. */
const HEALTH_EVERY_MS = 1_000;

/**
 * The server's health as every view sees it (one query, shared): "down" as soon as one check fails
 * (no retries: a refused connection answers at once), "ok" again with the first answer after.
 * `rendered`: the health the server put in the page it rendered, so a page shows the engine online at
 * once rather than "Connecting…" until its first check (the checks then go on every second).
 */
export function useEngineHealth(rendered?: Health): { status: Status; engine?: string; checkedAt?: number } {
  const trpc = useTRPC();
  const health = useQuery(
    trpc.health.queryOptions(undefined, {
      refetchInterval: HEALTH_EVERY_MS,
      refetchIntervalInBackground: false,
      retry: false,
      initialData: rendered,
      initialDataUpdatedAt: rendered ? new Date(rendered.time).getTime() : undefined,
    }),
  );
  const status: Status = health.isError ? "down" : health.data?.ok ? "ok" : "pending";
  return { status, engine: health.data?.engine, checkedAt: health.data?.time ? new Date(health.data.time).getTime() : undefined };
}

/** Live engine status in the header: online, connecting, or reconnecting once the server stops answering. */
export function EngineStatus({ rendered }: { rendered?: Health }) {
  const { status, engine, checkedAt } = useEngineHealth(rendered);
  const look = LOOK[status];
  const label = status === "ok" ? `Engine v${engine}` : status === "down" ? "Reconnecting…" : "Connecting…";
  return (
    <span
      data-testid="engine-status"
      data-status={status}
      role="status"
      title={status === "down" ? "The server does not answer; retrying every second" : checkedAt ? `${label} · last checked ${timestamp(checkedAt)}` : undefined}
      className={`inline-flex items-center gap-2 rounded-full border bg-white/[0.03] px-3 py-1 text-xs font-medium ${look.ring}`}
    >
      <span className={`h-1.5 w-1.5 rounded-full ${look.dot}`} aria-hidden="true" />
      {/* Below 1280 px the version stays in the tooltip: the header then holds the waiting count and the search on one line. */}
      {status === "ok" ? <span className="hidden xl:inline">{label}</span> : label}
      {status === "ok" && <span className="text-emerald-300/90">online</span>}
    </span>
  );
}
