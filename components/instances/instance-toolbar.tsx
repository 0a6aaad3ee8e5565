"use client";

import Link from "next/link";
import type { InstanceDetail, InstanceStatus } from "@/components/api/contract";
import type { ControlAvailability } from "@/components/instances/control-policy";
import { Button } from "@/components/ui/button";
import { StatusBadge } from "@/components/ui/status-badge";

export interface ToolbarActions {
  pause(): void;
  stop(): void;
  resume(): void;
  recover(): void;
  deliver(): void;
  reinvoke(): void;
  selectVersion(v: number): void;
}

/** Instance title, live status, version switcher and the control buttons (disabled with a reason). */
export function InstanceToolbar({
  detail,
  status,
  latestStatus,
  allowed,
  pending,
  draining,
  live,
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
  actions: ToolbarActions;
}) {
  const s = detail.summary;
  const versions = [...s.versions].sort((a, b) => b.version - a.version);
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
      <h1 className="text-sm font-semibold text-white">{s.graphName}</h1>
      <span className="font-mono text-[11px] text-zinc-500" title={s.instanceId}>
        {s.instanceId}
      </span>
      <StatusBadge status={status} />
      {draining && (
        <span data-testid="draining" className="text-xs text-amber-300">
          {draining}
        </span>
      )}
      <span className={`text-[11px] ${live === "live" ? "text-emerald-400/80" : "text-zinc-500"}`} title="Event stream">
        {live === "live" ? "● live" : live === "error" ? "stream lost" : live === "connecting" ? "connecting…" : ""}
      </span>
      <div className="ml-auto flex items-center gap-2">
        <label className="flex items-center gap-1.5 text-xs text-zinc-400">
          Version
          <select
            aria-label="Version"
            value={s.shownVersion}
            onChange={(e) => actions.selectVersion(Number(e.target.value))}
            className="rounded-md border border-white/15 bg-zinc-950 px-1.5 py-1 text-xs text-zinc-200"
          >
            {versions.map((v) => (
              <option key={v.version} value={v.version}>
                v{v.version} · {v.version === s.version ? latestStatus : v.status}
              </option>
            ))}
          </select>
        </label>
        {btn("Pause", allowed.pause, actions.pause)}
        {allowed.recover === null ? btn("Recover", null, actions.recover, "primary") : btn("Resume", allowed.resume, actions.resume)}
        {btn("Stop", allowed.stop, actions.stop, "danger")}
        {btn("Deliver…", allowed.deliver, actions.deliver)}
        {btn("Re-invoke…", allowed.reinvoke, actions.reinvoke, "primary")}
      </div>
    </div>
  );
}
