import type { InstanceStatus } from "@/components/api/contract";
import { NODE_STATE_LABEL } from "@/shared/canvas/node-state";

const LOOK: Record<InstanceStatus, string> = {
  running: "border-indigo-400/40 bg-indigo-400/10 text-indigo-200",
  paused: "border-amber-400/40 bg-amber-400/10 text-amber-200",
  stopped: "border-zinc-400/30 bg-zinc-400/10 text-zinc-300",
  crashed: "border-orange-500/40 bg-orange-500/10 text-orange-200",
  completed: "border-emerald-400/40 bg-emerald-400/10 text-emerald-200",
  failed: "border-rose-500/40 bg-rose-500/10 text-rose-200",
};

/** An instance status as a coloured pill; a live one (running) pulses. */
export function StatusBadge({ status, label }: { status: InstanceStatus; label?: string }) {
  return (
    <span data-testid="status-badge" data-status={status} className={`inline-flex items-center gap-1.5 whitespace-nowrap rounded-full border px-2 py-0.5 text-xs font-medium ${LOOK[status]}`}>
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
