"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useModexClient } from "@/components/api/modex-client";
import { ErrorState } from "@/components/ui/error-state";
import { timestamp } from "@/components/ui/format-time";
import { LocalTime } from "@/components/ui/local-time";
import { Skeleton } from "@/components/ui/skeleton";

const STATE_STYLE = { delivered: "text-emerald-300", pending: "text-amber-300", failed: "text-rose-300" } as const;

/** A notification's newest deliveries: what was sent for which run, how it went, and why it failed. */
export function NotificationDeliveries({ id }: { id: string }) {
  const client = useModexClient();
  const deliveries = useQuery({ queryKey: ["triggers", "notifications", id, "deliveries"], queryFn: () => client.notifications.deliveries.query({ id }), refetchInterval: 2_000 });
  if (deliveries.isPending) return <Skeleton className="h-10" />;
  if (deliveries.isError) return <ErrorState title="Could not load the deliveries" error={deliveries.error} onRetry={() => void deliveries.refetch()} />;
  if (deliveries.data.length === 0) return <p className="text-zinc-500">No deliveries yet: one is made when a matching run reaches its state, or with Send test.</p>;
  return (
    <ul className="divide-y divide-white/5" data-testid="notification-deliveries">
      {deliveries.data.map((d) => (
        <li key={d.id} data-testid="delivery-row" data-state={d.state} className="flex flex-wrap items-baseline gap-x-3 gap-y-0.5 py-1.5">
          <LocalTime at={d.createdAt} format="ago" title={timestamp(d.createdAt)} />
          <span className="font-medium text-zinc-100">{d.event}</span>
          {d.event === "test" ? (
            <span className="text-zinc-500">test</span>
          ) : (
            <Link href={`/instances/${encodeURIComponent(d.instanceId)}`} className="font-mono text-zinc-300 hover:text-indigo-300">
              {d.instanceId}
            </Link>
          )}
          <span className={STATE_STYLE[d.state]} data-testid="delivery-state">
            {d.state}
            {d.lastStatus !== null && <span data-testid="delivery-status"> · {d.lastStatus}</span>}
          </span>
          <span className="text-zinc-500">
            {d.attempts} {d.attempts === 1 ? "attempt" : "attempts"}
            {d.state === "pending" && d.attempts > 0 && <> · next at <LocalTime at={d.nextAttemptAt} format="clock" title={timestamp(d.nextAttemptAt)} /></>}
          </span>
          {d.lastError && d.state !== "delivered" && <span className="min-w-0 break-all text-rose-300/90">{d.lastError}</span>}
        </li>
      ))}
    </ul>
  );
}
