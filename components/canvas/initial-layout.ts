import { type GraphLayout, type NodeBox, sizeOf } from "@/shared/canvas/elk-layout";
import { backEdges } from "@/shared/canvas/back-edges";
import { edgeId, type Topology, type TopoNode } from "@/shared/canvas/topology";

const GAP_X = 56;
const GAP_Y = 28;
const PAD = 24;

/**
 * A layered left-to-right layout computed at once on the main thread, shown until ELK's first layout
 * arrives (a cold ELK worker needs the best part of a second to load and lay out): each node sits in
 * the layer of its longest path from START (edges back along the DFS, i.e. loops, left out), END
 * last, layers in declaration order and centred on each other. Edges get no route (drawn as curves).
 * The spacing is ELK's, so most nodes move little when ELK's layout replaces it.
 */
export function initialLayout(topology: Topology): GraphLayout {
  const { nodes, edges } = topology;
  const out = new Map<string, string[]>();
  for (const n of nodes) out.set(n.id, []);
  for (const e of edges) out.get(e.source)?.push(e.target);

  const back = backEdges(topology);

  // Longest path over the remaining (acyclic) edges, in topological order.
  const indegree = new Map<string, number>(nodes.map((n) => [n.id, 0]));
  for (const [s, ts] of out) for (const t of ts) if (!back.has(edgeId(s, t))) indegree.set(t, (indegree.get(t) ?? 0) + 1);
  const layer = new Map<string, number>();
  const queue = nodes.filter((n) => indegree.get(n.id) === 0).map((n) => n.id);
  for (const id of queue) layer.set(id, 0);
  for (let i = 0; i < queue.length; i++) {
    const s = queue[i];
    for (const t of out.get(s) ?? []) {
      if (back.has(edgeId(s, t))) continue;
      layer.set(t, Math.max(layer.get(t) ?? 0, (layer.get(s) ?? 0) + 1));
      indegree.set(t, (indegree.get(t) ?? 1) - 1);
      if (indegree.get(t) === 0) queue.push(t);
    }
  }
  let last = 0;
  for (const n of nodes) if (n.kind !== "end") last = Math.max(last, layer.get(n.id) ?? 0);
  const layers: TopoNode[][] = [];
  for (const n of nodes) {
    const l = n.kind === "start" ? 0 : n.kind === "end" ? last + 1 : (layer.get(n.id) ?? 0);
    (layers[l] ??= []).push(n);
  }

  const columnHeight = (col: readonly TopoNode[]) => col.reduce((h, n) => h + sizeOf(n, topology).height, 0) + GAP_Y * (col.length - 1);
  const tallest = Math.max(0, ...layers.map((col) => (col ? columnHeight(col) : 0)));
  const boxes = new Map<string, NodeBox>();
  let x = PAD;
  for (const col of layers) {
    if (!col) continue;
    const width = Math.max(...col.map((n) => sizeOf(n, topology).width));
    let y = PAD + (tallest - columnHeight(col)) / 2;
    for (const n of col) {
      const size = sizeOf(n, topology);
      boxes.set(n.id, { x: x + (width - size.width) / 2, y, ...size });
      y += size.height + GAP_Y;
    }
    x += width + GAP_X;
  }
  return { nodes: boxes, edges: new Map(), width: x - GAP_X + PAD, height: tallest + 2 * PAD };
}
