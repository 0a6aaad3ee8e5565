import type { InstanceView } from "@/server/services/instance-query-service";
import { edgeId, type Topology, type TopoNode, withJoins } from "@/shared/canvas/topology";

/** The instance's compiled topology (from `instances.get`) as the canvas model. */
export function instanceTopology(t: InstanceView["topology"]): Topology {
  const nodes: TopoNode[] = t.nodes.map((n) => ({
    id: n.name,
    kind: n.isStart ? "start" : n.isEnd ? "end" : "node",
    nodeType: n.isStart || n.isEnd ? "" : n.nodeType,
    isJoin: n.isJoin,
    description: n.description ?? undefined,
  }));
  const seen = new Set<string>();
  const edges = t.edges.flatMap((e) => {
    const id = edgeId(e.from, e.to);
    if (seen.has(id)) return [];
    seen.add(id);
    return [{ id, source: e.from, target: e.to }];
  });
  // A run's canvas: node cards have a line for their state (sized in, so the layout fits them), and a
  // graph too wide for it wraps (beside the side panel, approval-gate's END was cut off at 1024 and 1440 px).
  return { nodes: withJoins(nodes, edges), edges, runStates: true, wrap: "wide" };
}
