import { useQuery } from "@tanstack/react-query";
import type { InstanceDetail } from "@/components/api/contract";
import { useModexClient } from "@/components/api/modex-client";
import { NODE_STATE_LABEL, type NodeRunState } from "@/shared/canvas/node-state";
import { displayName } from "@/shared/canvas/topology";
import { AgentUsage } from "@/components/instances/agent/agent-usage";
import { preview } from "@/components/instances/run-model";
import { duration } from "@/components/ui/format-time";
import { Skeleton } from "@/components/ui/skeleton";
import { LocalTime } from "@/components/ui/local-time";

const INVOCATION_LOOK: Record<string, string> = {
  RUNNING: "text-indigo-300",
  COMPLETED: "text-emerald-300",
  FAILED: "text-rose-300",
  CANCELLED: "text-zinc-400",
  CRASHED: "text-orange-300",
};

/**
 * One node: its state, each invocation (version, timings, error) with what it consumed and delivered.
 * `detail` is the instance without invocations; this node's come from their own query, which the
 * instance view's refresh (invalidating ["instances", "get", id]) updates too.
 */
export function NodeDetail({
  node,
  detail,
  state,
  inner,
  onClose,
}: {
  node: string;
  detail: InstanceDetail;
  state?: NodeRunState;
  /** A subgraph node: its inner graph's nodes and their states in this version. */
  inner?: { name: string; state?: NodeRunState }[];
  onClose(): void;
}) {
  const client = useModexClient();
  const { instanceId, shownVersion } = detail.summary;
  const own = useQuery({
    queryKey: ["instances", "get", instanceId, shownVersion, "node", node],
    queryFn: () => client.instances.get.query({ instanceId, version: shownVersion, node }),
  });
  const topo = detail.topology.nodes.find((n) => n.name === node);
  const invocations = (own.data?.invocations ?? []).filter((i) => i.node === node).sort((a, b) => a.startedAt - b.startedAt);
  const deliverById = new Map((own.data?.delivers ?? []).map((d) => [d.deliverId, d]));
  return (
    <section aria-label={`Node ${node}`} data-testid="node-detail" className="border-b border-white/10 px-4 py-3">
      <div className="flex items-center justify-between">
        <h2 className="text-sm font-semibold text-white">{displayName(node)}</h2>
        <button type="button" onClick={onClose} className="text-xs text-zinc-500 hover:text-white" aria-label="Close node detail">
          ✕
        </button>
      </div>
      <p className="mt-0.5 text-xs text-zinc-400">
        <span className="font-mono">{topo?.nodeType}</span>
        {topo?.isJoin && <span className="ml-2 text-teal-300">join</span>}
        {state && <span className="ml-2">· {NODE_STATE_LABEL[state]}</span>}
      </p>
      {topo?.description && <p className="mt-1 text-xs text-zinc-500">{topo.description}</p>}
      {topo?.nodeType === "agent" && <AgentUsage instanceId={instanceId} version={shownVersion} node={node} />}
      {inner && (
        <div data-testid="inner-graph" className="mt-2 rounded-md border border-fuchsia-400/20 bg-fuchsia-500/[0.04] p-2 text-xs">
          <p className="text-zinc-500">Inner graph (its events are under “{node} ›” in the timeline)</p>
          <ul className="mt-1 space-y-0.5">
            {inner.map((n) => (
              <li key={n.name} data-testid="inner-node" data-node={n.name} data-state={n.state ?? "pending"} className="flex justify-between font-mono">
                <span className="text-zinc-300">{n.name}</span>
                <span className="text-zinc-400">{n.state ? NODE_STATE_LABEL[n.state] : "not run"}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {!own.data ? (
        <div className="mt-3 space-y-2" aria-label="Loading the node's invocations">
          <Skeleton className="h-12" />
        </div>
      ) : invocations.length === 0 ? (
        <p className="mt-3 text-xs text-zinc-500">Not invoked in this version yet.</p>
      ) : (
        <ol className="mt-3 space-y-2">
          {invocations.map((inv) => (
            <li key={inv.invocationId} className="rounded-md border border-white/10 bg-white/[0.02] p-2 text-xs">
              <div className="flex items-center justify-between">
                <span className="font-mono text-zinc-300">#{inv.version}</span>
                <span className={INVOCATION_LOOK[inv.status] ?? "text-zinc-300"}>{inv.status.toLowerCase()}</span>
              </div>
              <p className="mt-1 text-zinc-500">
                <LocalTime at={inv.startedAt} format="clock" /> · {inv.endedAt ? duration(inv.endedAt - inv.startedAt) : "running"}
              </p>
              {inv.error && <p className="mt-1 break-words font-mono text-rose-300">{inv.error}</p>}
              {inv.consumed.length > 0 && (
                <div className="mt-1.5">
                  <p className="text-zinc-500">consumed</p>
                  {inv.consumed.map((id) => {
                    const d = deliverById.get(id);
                    return (
                      <p key={id} className="truncate font-mono text-zinc-300" title={d ? preview(d.content, 2000) : id}>
                        {d ? `${displayName(d.source)}: ${preview(d.content, 60)}` : id}
                      </p>
                    );
                  })}
                </div>
              )}
              {inv.delivered.length > 0 && (
                <div className="mt-1.5">
                  <p className="text-zinc-500">delivered</p>
                  {inv.delivered.map((id) => {
                    const d = deliverById.get(id);
                    return (
                      <p key={id} className="truncate font-mono text-zinc-300" title={d ? preview(d.content, 2000) : id}>
                        {d ? `→ ${displayName(d.target)}: ${preview(d.content, 60)}` : id}
                      </p>
                    );
                  })}
                </div>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
