import Link from "next/link";
import type { InstanceDetail, InstanceStatus } from "@/components/api/contract";
import { preview, unwrap } from "@/components/instances/run-model";
import { duration, timeAgo } from "@/components/ui/format-time";
import { StatusBadge } from "@/components/ui/status-badge";
import { StartedBy } from "@/components/triggers/started-by";

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="flex gap-3 py-1">
      <dt className="w-20 shrink-0 text-zinc-500">{label}</dt>
      <dd className="min-w-0 flex-1 text-zinc-200">{children}</dd>
    </div>
  );
}

/** Status, version, spec, times, input and result of the version on screen. */
export function InstanceSummary({ detail, status }: { detail: InstanceDetail; status: InstanceStatus }) {
  const s = detail.summary;
  const shown = s.versions.find((v) => v.version === s.shownVersion);
  const result = s.result?.map((p) => unwrap(p));
  return (
    <section aria-label="Instance summary" data-testid="instance-summary" className="border-b border-white/10 px-4 py-3">
      <h2 className="text-xs font-semibold uppercase tracking-wide text-zinc-500">Instance</h2>
      <dl className="mt-2 text-xs">
        <Field label="Status">
          <StatusBadge status={status} />
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
          <span title={shown ? new Date(shown.createdAt).toLocaleString() : undefined}>{timeAgo(shown?.createdAt ?? s.createdAt)}</span>
        </Field>
        <Field label="Started by"><StartedBy instanceId={s.instanceId} /></Field>
        <Field label="Duration">{shown && status !== "running" ? duration(shown.updatedAt - shown.createdAt) : "—"}</Field>
        <Field label="Input">
          <code className="block truncate font-mono text-zinc-300" title={preview(s.input ? unwrap(s.input) : null, 2000)}>
            {preview(s.input ? unwrap(s.input) : null)}
          </code>
        </Field>
        <Field label="Result">
          {result && result.length > 0 ? (
            <code data-testid="instance-result" className="block whitespace-pre-wrap break-words font-mono text-emerald-200/90">
              {preview(result.length === 1 ? result[0] : result, 400)}
            </code>
          ) : (
            <span className="text-zinc-500">{status === "completed" ? "nothing reached END" : "not finished"}</span>
          )}
        </Field>
      </dl>
    </section>
  );
}
