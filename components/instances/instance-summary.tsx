"use client";

import Link from "next/link";
import type { InstanceDetail, InstanceStatus } from "@/components/api/contract";
import { preview, unwrap } from "@/components/instances/run-model";
import { type ReactNode, useState } from "react";
import { RunUsage } from "@/components/instances/agent/agent-usage";
import { useNow } from "@/components/instances/use-now";
import { duration, timeAgo } from "@/components/ui/format-time";
import { StatusBadge } from "@/components/ui/status-badge";
import { StartedBy } from "@/components/triggers/started-by";
import { LocalTime } from "@/components/ui/local-time";
import { useHydrated } from "@/components/ui/use-hydrated";
import { QUEUED_LABEL, type QueuedWork } from "@/shared/queued-work";

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="flex gap-3 py-1">
      <dt className="w-20 shrink-0 text-zinc-500">{label}</dt>
      <dd className="min-w-0 flex-1 text-zinc-200">{children}</dd>
    </div>
  );
}

/** Longer inputs than this show their start, wrapped, and a "Show all" that opens the rest. */
const INPUT_PREVIEW = 120;

/** The run's input: wrapped (not cut to one line), its start first when long; the tooltip holds it too. */
function RunInput({ input }: { input: unknown }) {
  const [open, setOpen] = useState(false);
  const full = preview(input, 4000);
  const long = full.length > INPUT_PREVIEW;
  return (
    <>
      <code
        data-testid="instance-input"
        title={full}
        className={`block whitespace-pre-wrap font-mono text-zinc-300 wrap-anywhere ${open ? "max-h-64 overflow-y-auto" : ""}`}
      >
        {open ? full : preview(input, INPUT_PREVIEW)}
      </code>
      {long && (
        <button type="button" onClick={() => setOpen(!open)} aria-expanded={open} className="mt-0.5 text-[11px] text-indigo-300 hover:text-indigo-200">
          {open ? "Show less" : "Show all"}
        </button>
      )}
    </>
  );
}

/**
 * Status, version, spec, times, input and result of the version on screen. The duration is the
 * version's own, from its first event to its last stop (ticking while it runs); a failed version says
 * which node failed and why.
 */
export function InstanceSummary({
  detail,
  status,
  waiting,
  queued = null,
  timing,
  failure,
  actions,
}: {
  detail: InstanceDetail;
  status: InstanceStatus;
  /** What the paused run waits for ("waiting for input", "waiting for approval"); null when not. */
  waiting: string | null;
  /** On a cluster: accepted work no worker has started yet; null when none. */
  queued?: QueuedWork | null;
  /** The shown version's first event and last stop (from its events), ms. */
  timing: { startedAt: number | null; endedAt: number | null };
  failure: { node: string | null; error: string } | null;
  actions?: ReactNode;
}) {
  const s = detail.summary;
  const shown = s.versions.find((v) => v.version === s.shownVersion);
  const result = s.result?.map((p) => unwrap(p));
  const now = useNow(1_000, status === "running");
  const startedAt = timing.startedAt ?? shown?.createdAt ?? null;
  // A running run's duration counts on the viewer's clock: drawn once hydrated (the server's differs).
  const hydrated = useHydrated();
  const endedAt = status === "running" ? (hydrated ? now : null) : (timing.endedAt ?? shown?.updatedAt ?? null);
  return (
    <section aria-label="Instance summary" data-testid="instance-summary" className="border-b border-white/10 px-4 py-3">
      <h2 className="text-xs font-semibold uppercase tracking-wide text-zinc-500">Instance</h2>
      <dl className="mt-2 text-xs">
        <Field label="Status">
          <StatusBadge status={status} label={queued ? QUEUED_LABEL : waiting && status === "paused" ? waiting : undefined} />
          {s.archived && <span className="ml-2 rounded border border-white/15 px-1.5 py-0.5 text-[10px] uppercase text-zinc-400">archived</span>}
        </Field>
        <Field label="Version">
          {s.shownVersion} of {s.versions.length}
        </Field>
        <Field label="Spec">
          {s.spec ? (
            <Link href={`/graphs/${encodeURIComponent(s.spec.name)}`} className="text-indigo-300 hover:text-indigo-200">
              {s.spec.name}
              {s.spec.version && <span className="ml-1 font-mono text-zinc-500">v{s.spec.version}</span>}
            </Link>
          ) : (
            s.graphName
          )}
        </Field>
        <Field label="Started">
          <LocalTime at={startedAt} title={timeAgo(startedAt)} />
        </Field>
        <Field label="Started by"><StartedBy instanceId={s.instanceId} /></Field>
        {detail.topology.nodes.some((node) => node.nodeType === "agent") && (
          <Field label="Tokens">
            <RunUsage instanceId={s.instanceId} version={s.shownVersion} />
          </Field>
        )}
        <Field label="Duration">
          <span data-testid="instance-duration" className="tabular-nums">
            {startedAt !== null && endedAt !== null ? duration(endedAt - startedAt) : "—"}
            {status === "running" && <span className="ml-1 text-indigo-300">· running</span>}
          </span>
        </Field>
        <Field label="Input">
          <RunInput input={s.input ? unwrap(s.input) : null} />
        </Field>
        <Field label="Result">
          {result && result.length > 0 ? (
            <code data-testid="instance-result" className="block whitespace-pre-wrap break-words font-mono text-emerald-200/90">
              {preview(result.length === 1 ? result[0] : result, 400)}
            </code>
          ) : (
            <span className="text-zinc-500">
              {status === "completed" ? "nothing reached END" : status === "failed" ? "none: the run failed" : status === "stopped" ? "none: the run was stopped" : "not finished"}
            </span>
          )}
        </Field>
        {status === "failed" && (
          <div data-testid="failure-reason" role="alert" className="mt-2 rounded-md border border-rose-500/30 bg-rose-950/30 px-2.5 py-2 text-rose-200">
            {failure ? (
              <>
                <div className="font-semibold">
                  {failure.node === null ? (
                    "The run failed outside any node"
                  ) : (
                    <>
                      Failed at node <span className="font-mono">{failure.node}</span>
                    </>
                  )}
                </div>
                <div className="mt-1 whitespace-pre-wrap break-words font-mono text-[11px] text-rose-100/90">{failure.error}</div>
              </>
            ) : (
              <div>The run failed outside any node (for example, it ran past its max_iterations); its events say when.</div>
            )}
          </div>
        )}
      </dl>
      {actions && <div className="mt-3 flex justify-end">{actions}</div>}
    </section>
  );
}
