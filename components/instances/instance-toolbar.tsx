"use client";

import Link from "next/link";
import { useState } from "react";
import type { InstanceDetail, InstanceStatus } from "@/components/api/contract";
import type { ControlAvailability } from "@/components/instances/control-policy";
import { useEngineHealth } from "@/components/shell/engine-status";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { StatusBadge } from "@/components/ui/status-badge";
import { useLasting } from "@/components/ui/use-lasting";
import { InstanceLineage } from "@/components/instances/instance-lineage";
import { QUEUED_LABEL, type QueuedWork } from "@/shared/queued-work";

export interface ToolbarActions {
  pause(): void;
  stop(): void;
  resume(): void;
  recover(): void;
  deliver(): void;
  reinvoke(): void;
  selectVersion(v: number): void;
}

/** How long the event stream may take to open before the toolbar says it is connecting. */
const CONNECTING_GRACE_MS = 5_000;

/** What "ended" means for the run (its stream stays open either way). */
const ENDED_TITLE: Partial<Record<InstanceStatus, string>> = {
  completed: "The run has ended. A re-invoke or a deliver starts a new version, shown here live",
  failed: "The run has ended. A re-invoke or a deliver starts a new version, shown here live",
  stopped: "The run was stopped for good: nothing more will happen to it",
};

/** Instance title, live status, version switcher and the control buttons (disabled with a reason). */
export function InstanceToolbar({
  detail,
  status,
  latestStatus,
  allowed,
  pending,
  draining,
  live,
  waiting,
  queued,
  actions,
}: {
  detail: InstanceDetail;
  /** The status of the version shown. */
  status: InstanceStatus;
  /** The status of the latest version (live when it is the one shown). */
  latestStatus: InstanceStatus;
  allowed: ControlAvailability;
  pending: string | null;
  draining: string | null;
  live: string;
  /** The shown version is paused for a person: what it waits for ("waiting for input", "waiting for approval"); null when not. */
  waiting: string | null;
  /** On a cluster: accepted work no worker has started yet (the latest version, shown); null when none. */
  queued: QueuedWork | null;
  actions: ToolbarActions;
}) {
  const [confirmStop, setConfirmStop] = useState(false);
  // The stream's own state lags a stopped server (its reconnects are silent); the shared health check
  // notices within about two seconds.
  const engine = useEngineHealth().status;
  // A finished run's stream stays open (a re-invoke or a deliver starts its next version here), but
  // nothing is running: "● live" read as still running. Back to live when a new version starts.
  const ended = latestStatus === "completed" || latestStatus === "failed" || latestStatus === "stopped";
  const shownLive = engine === "down" ? "reconnecting" : live === "live" && ended ? "ended" : live;
  // The stream opens within a moment of every page load: "connecting…" only if it takes a while.
  const slowConnect = useLasting(shownLive === "connecting", CONNECTING_GRACE_MS);
  const s = detail.summary;
  const versions = [...s.versions].sort((a, b) => b.version - a.version);
  // The shown version says what the status badge says ("waiting for input", not "paused").
  const waitingLabel = queued ? QUEUED_LABEL : waiting && status === "paused" ? waiting : undefined;
  const btn = (label: string, reason: string | null, onClick: () => void, variant: "secondary" | "danger" | "primary" = "secondary") => (
    <Button size="sm" variant={variant} disabled={reason !== null || pending === label} title={reason ?? undefined} aria-label={label} onClick={onClick}>
      {pending === label ? `${label}…` : label}
    </Button>
  );
  return (
    <div className="flex h-12 shrink-0 items-center gap-3 border-b border-white/10 px-4">
      <Link href="/instances" className="text-sm text-zinc-400 hover:text-white">
        Instances
      </Link>
      <span className="text-zinc-600">/</span>
      <h1 className="min-w-0 max-w-[16rem] shrink-0 truncate whitespace-nowrap text-sm font-semibold text-white" title={s.graphName}>{s.graphName}</h1>
      {/* The id gives way on a narrow window (its tooltip holds it whole): the name and the controls stay in view. */}
      <span data-testid="toolbar-instance-id" className="min-w-0 truncate font-mono text-[11px] text-zinc-500" title={s.instanceId}>
        {s.instanceId}
      </span>
      <StatusBadge status={status} label={waitingLabel} />
      <InstanceLineage lineage={s.lineage} />
      {draining && (
        <span data-testid="draining" className="text-xs text-amber-300">
          {draining}
        </span>
      )}
      <span data-testid="live-status" data-live={shownLive} className={`shrink-0 whitespace-nowrap text-[11px] ${shownLive === "live" ? "text-emerald-400/80" : shownLive === "reconnecting" ? "text-amber-300" : "text-zinc-500"}`} title={shownLive === "ended" ? ENDED_TITLE[latestStatus] : "Event stream"}>
        {shownLive === "live" ? "● live" : shownLive === "ended" ? "ended" : shownLive === "reconnecting" ? "reconnecting…" : shownLive === "error" ? "stream lost" : slowConnect ? "connecting…" : ""}
      </span>
      <div className="ml-auto flex shrink-0 items-center gap-2">
        <label className="flex items-center gap-1.5 text-xs text-zinc-400">
          <span className="hidden xl:inline">Version</span>
          <select
            aria-label="Version"
            value={s.shownVersion}
            onChange={(e) => actions.selectVersion(Number(e.target.value))}
            className="rounded-md border border-white/15 bg-zinc-950 px-1.5 py-1 text-xs text-zinc-200"
          >
            {versions.map((v) => (
              <option key={v.version} value={v.version}>
                v{v.version} · {(v.version === s.shownVersion && waitingLabel) || (v.version === s.version ? latestStatus : v.status)}
              </option>
            ))}
          </select>
        </label>
        {btn("Pause", allowed.pause, actions.pause)}
        {/* A crashed run's way on is Recover (disabled with why while a recovery is queued for a worker). */}
        {status === "crashed" ? btn("Recover", allowed.recover, actions.recover, "primary") : btn("Resume", allowed.resume, actions.resume)}
        {btn("Stop", allowed.stop, () => setConfirmStop(true), "danger")}
        {btn("Deliver…", allowed.deliver, actions.deliver)}
        {btn("Re-invoke…", allowed.reinvoke, actions.reinvoke, "primary")}
      </div>
      {confirmStop && (
        <ConfirmDialog
          open
          title="Stop this run?"
          confirmLabel="Stop the run"
          onClose={() => setConfirmStop(false)}
          onConfirm={() => {
            setConfirmStop(false);
            actions.stop();
          }}
        >
          <p>Nodes already running finish; no new node starts, and the run ends as stopped.</p>
          <p className="font-semibold text-rose-200">This cannot be undone: a stopped run cannot be resumed or re-invoked. To continue later, pause it instead.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
