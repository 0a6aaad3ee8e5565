import type { RouterOutputs } from "@/server/api/root";
import { duration } from "@/components/ui/format-time";

type ClusterView = Extract<RouterOutputs["cluster"]["status"], { mode: "cluster" }>;
export type ClusterProcessView = ClusterView["processes"][number];

const ROLE_STYLE: Record<ClusterProcessView["role"], string> = {
  web: "bg-sky-500/15 text-sky-200",
  all: "bg-violet-500/15 text-violet-200",
  worker: "bg-emerald-500/15 text-emerald-200",
};

/** One process of the cluster: its role, where it runs, how fresh its heartbeat is, the leases it holds. */
export function ClusterProcessRow({ process: p }: { process: ClusterProcessView }) {
  return (
    <tr data-testid="cluster-process" data-id={p.id} data-role={p.role} data-expired={p.expired} className="border-t border-white/10">
      <td className="py-2.5 pr-4">
        <span className={`rounded px-1.5 py-0.5 text-[11px] font-semibold uppercase tracking-wide ${ROLE_STYLE[p.role]}`}>{p.role}</span>
      </td>
      <td className="py-2.5 pr-4">
        <code className="break-all text-xs text-zinc-200">{p.id}</code>
        {p.self && <span className="ml-2 text-xs text-zinc-500">(this page&apos;s server)</span>}
      </td>
      <td className="py-2.5 pr-4 text-zinc-300">{p.host === null ? "—" : `${p.host}:${p.pid}`}</td>
      <td className="py-2.5 pr-4 text-right tabular-nums text-zinc-300">{p.heartbeatAgeMs === null ? "no heartbeat" : `${duration(p.heartbeatAgeMs)} ago`}</td>
      <td className="py-2.5 pr-4">
        {p.expired ? (
          <span data-testid="cluster-process-state" className="font-semibold text-rose-300">expired</span>
        ) : (
          <span data-testid="cluster-process-state" className="text-emerald-300">live</span>
        )}
      </td>
      <td data-testid="cluster-process-leases" className="py-2.5 pr-4 text-right tabular-nums text-zinc-100">{p.leases}</td>
      <td data-testid="cluster-process-expired-leases" className={`py-2.5 text-right tabular-nums ${p.expiredLeases > 0 ? "font-semibold text-amber-300" : "text-zinc-500"}`}>
        {p.expiredLeases}
      </td>
    </tr>
  );
}
