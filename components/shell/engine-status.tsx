"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";

type Status = "pending" | "ok" | "down";

const LOOK: Record<Status, { dot: string; ring: string }> = {
  pending: { dot: "bg-zinc-500", ring: "border-white/10 text-zinc-400" },
  ok: { dot: "bg-emerald-400 shadow-[0_0_8px_var(--color-emerald-400)]", ring: "border-emerald-400/25 text-zinc-200" },
  down: { dot: "bg-rose-500", ring: "border-rose-500/40 text-rose-200" },
};

/** Live engine status from the `health` query, re-checked every 15 s. */
export function EngineStatus() {
  const trpc = useTRPC();
  const health = useQuery(trpc.health.queryOptions(undefined, { refetchInterval: 15_000 }));
  const status: Status = health.isError ? "down" : health.data?.ok ? "ok" : "pending";
  const look = LOOK[status];
  const label =
    status === "ok" ? `Engine v${health.data?.engine}` : status === "down" ? "Engine unreachable" : "Connecting…";
  const title = health.data ? `Last checked ${new Date(health.data.time).toLocaleTimeString()}` : undefined;

  return (
    <span
      data-testid="engine-status"
      data-status={status}
      role="status"
      title={title}
      className={`inline-flex items-center gap-2 rounded-full border bg-white/[0.03] px-3 py-1 text-xs font-medium ${look.ring}`}
    >
      <span className={`h-1.5 w-1.5 rounded-full ${look.dot}`} aria-hidden="true" />
      {label}
      {status === "ok" && <span className="text-emerald-300/90">online</span>}
    </span>
  );
}
