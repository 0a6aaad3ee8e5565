import type { InstanceStatus } from "@/components/api/contract";
import { NODE_STATE_LABEL } from "@/shared/canvas/node-state";
import { QUEUED_ROW_LABEL, type QueuedWork, queuedReason } from "@/shared/queued-work";

const LOOK: Record<InstanceStatus, string> = {
  running: "border-indigo-400/40 bg-indigo-400/10 text-indigo-200",
  paused: "border-amber-400/40 bg-amber-400/10 text-amber-200",
  stopped: "border-zinc-400/30 bg-zinc-400/10 text-zinc-300",
  crashed: "border-orange-500/40 bg-orange-500/10 text-orange-200",
  completed: "border-emerald-400/40 bg-emerald-400/10 text-emerald-200",
  failed: "border-rose-500/40 bg-rose-500/10 text-rose-200",
};

/** An instance status as a coloured pill; a live one (running) pulses. */
export function StatusBadge({ status, label, title }: { status: InstanceStatus; label?: string; title?: string }) {
  return (
    <span data-testid="status-badge" data-status={status} title={title} className={`inline-flex items-center gap-1.5 whitespace-nowrap rounded-full border px-2 py-0.5 text-xs font-medium ${LOOK[status]}`}>
      <span className={`h-1.5 w-1.5 rounded-full bg-current ${status === "running" ? "animate-pulse" : ""}`} aria-hidden="true" />
      {label ?? status}
    </span>
  );
}

/**
 * A list row's badge label for a run paused for a person: what it waits for, as the instance view
 * says it ("waiting for approval" for an agent's tool call, "waiting for input" otherwise); undefined
 * (the status itself) when it does not wait.
 */
export function waitLabel(waitKind: "input" | "approval" | null | undefined): string | undefined {
  if (!waitKind) return undefined;
  return NODE_STATE_LABEL[waitKind === "approval" ? "approval" : "waiting"];
}

interface ListRow {
  waitKind: "input" | "approval" | null | undefined;
  queued?: QueuedWork | null;
}

/**
 * A list row's badge label (Instances, Home): work a cluster accepted that no worker has started reads
 * "queued for a worker" (the instance view's "Queued — waiting for a worker", as short as the other
 * row labels), else what a paused run waits for.
 */
export function rowLabel(row: ListRow): string | undefined {
  return row.queued ? QUEUED_ROW_LABEL : waitLabel(row.waitKind);
}

/** The badge's tooltip for queued work: what was accepted and why the run has not started. */
export function rowTitle(row: ListRow): string | undefined {
  return row.queued ? queuedReason(row.queued) : undefined;
}
