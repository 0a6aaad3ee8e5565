import { boundsOf, fitZoom, RUN_CANVAS } from "@/shared/canvas/canvas-fit";
import { BOTH_WAYS_MAX_NODES, type GraphLayout, type NodeBox, sizeOf } from "@/shared/canvas/elk-layout";
import { backEdges } from "@/shared/canvas/back-edges";
import { edgeId, type Topology, type TopoNode } from "@/shared/canvas/topology";

const GAP_X = 56;
const GAP_Y = 28;
const PAD = 24;
/** Between wrapped rows, as ELK leaves it (room for the edge that runs back to the next row's start). */
const ROW_GAP = 85;
/** Layers per wrapped row: what ELK's wrapping gives every example that wraps (elk-layout.ts, WIDE_DRAWINGS). */
const LAYERS_PER_ROW = 2;
/** ELK's spacing top to bottom: between side-by-side nodes, between layers, and before an END set aside. */
const DOWN_GAP_X = 42;
const DOWN_GAP_Y = 72;
const END_ASIDE_GAP = 83;

/**
 * A layered left-to-right layout computed at once on the main thread, shown until ELK's first layout
 * arrives (a cold ELK worker needs the best part of a second to load and lay out): each node sits in
 * the layer of its longest path from START (edges back along the DFS, i.e. loops, left out), END
 * last, layers in declaration order and centred on each other. Edges get no route (drawn as curves).
 * The spacing is ELK's, so most nodes move little when ELK's layout replaces it. A run's canvas
 * (`wrap: "wide"`) is drawn as ELK will draw it: one row if that fits the canvas, else rows of two
 * layers (cut only where one edge crosses, as ELK's SINGLE_EDGE wrapping), else the layers top to
 * bottom; the first stand-in drew one row, and the first run page after a start jumped into rows.
 */
export function initialLayout(topology: Topology): GraphLayout {
  const layers = layersOf(topology);
  if (topology.wrap !== "wide" || topology.nodes.length > BOTH_WAYS_MAX_NODES) return inRows(topology, [layers]);
  const zoom = (l: GraphLayout) => fitZoom(boundsOf(l.nodes.values()) ?? l, RUN_CANVAS);
  // ELK cannot cut between a fan-out's layers (several edges cross), so its rows of a fan-out stay about
  // as wide as one row (map-reduce: 0.74, against 0.63) and it takes the columns: so does the stand-in.
  const fanOut = layers.some((col) => col.length > 2);
  const drawings = [() => inRows(topology, [layers]), ...(fanOut ? [] : [() => inRows(topology, wrapped(topology, layers))]), () => topToBottom(topology, layers)];
  let best: GraphLayout | null = null;
  for (const draw of drawings) {
    const layout = draw();
    if (zoom(layout) >= RUN_CANVAS.minZoom) return layout;
    if (!best || zoom(layout) > zoom(best)) best = layout;
  }
  return best!;
}

/** The nodes by layer: each in the layer of its longest path from START (loops left out), END last. */
function layersOf(topology: Topology): TopoNode[][] {
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
  return layers.filter(Boolean);
}

/**
 * The layers cut into rows of LAYERS_PER_ROW, a cut only where a single (forward) edge crosses: a
 * branch's two edges into END keep it in the row of the branch, as ELK does.
 */
function wrapped(topology: Topology, layers: readonly TopoNode[][]): TopoNode[][][] {
  const layerOf = new Map<string, number>();
  layers.forEach((col, i) => col.forEach((n) => layerOf.set(n.id, i)));
  const back = backEdges(topology);
  const crossing = (i: number) =>
    topology.edges.filter((e) => !back.has(e.id) && (layerOf.get(e.source) ?? 0) <= i && (layerOf.get(e.target) ?? 0) > i).length;
  const rows: TopoNode[][][] = [[]];
  layers.forEach((col, i) => {
    rows[rows.length - 1].push(col);
    const row = rows[rows.length - 1];
    if (row.length >= LAYERS_PER_ROW && i < layers.length - 1 && crossing(i) === 1) rows.push([]);
  });
  return rows;
}

/**
 * Rows of layers, left to right, each row below the one before; a layer's nodes stacked and centred on
 * the row's tallest, each column as wide as its widest node over all rows.
 */
function inRows(topology: Topology, rows: readonly (readonly TopoNode[][])[]): GraphLayout {
  const size = (n: TopoNode) => sizeOf(n, topology);
  const columnHeight = (col: readonly TopoNode[]) => col.reduce((h, n) => h + size(n).height, 0) + GAP_Y * (col.length - 1);
  const widths: number[] = [];
  for (const row of rows) row.forEach((col, i) => (widths[i] = Math.max(widths[i] ?? 0, ...col.map((n) => size(n).width))));
  const boxes = new Map<string, NodeBox>();
  let top = PAD;
  let right = 0;
  for (const row of rows) {
    const tallest = Math.max(0, ...row.map(columnHeight));
    let x = PAD;
    row.forEach((col, i) => {
      let y = top + (tallest - columnHeight(col)) / 2;
      for (const n of col) {
        const s = size(n);
        boxes.set(n.id, { x: x + (widths[i] - s.width) / 2, y, ...s });
        y += s.height + GAP_Y;
      }
      x += widths[i] + GAP_X;
    });
    right = Math.max(right, x - GAP_X);
    top += tallest + ROW_GAP;
  }
  return { nodes: boxes, edges: new Map(), width: right + PAD, height: top - ROW_GAP + PAD };
}

/**
 * The layers top to bottom, a layer's nodes side by side (a fan-out's branches): ELK's columns drawing.
 * A lone END after them starts a second column at the top, as ELK's wrap puts it (map-reduce, research-team).
 */
function topToBottom(topology: Topology, all: readonly TopoNode[][]): GraphLayout {
  const size = (n: TopoNode) => sizeOf(n, topology);
  const tail = all.at(-1);
  const endAside = all.length > 2 && tail?.length === 1 && tail[0].kind === "end" ? tail[0] : null;
  const layers = endAside ? all.slice(0, -1) : all;
  const rowWidth = (col: readonly TopoNode[]) => col.reduce((w, n) => w + size(n).width, 0) + DOWN_GAP_X * (col.length - 1);
  const widest = Math.max(0, ...layers.map(rowWidth));
  const boxes = new Map<string, NodeBox>();
  let y = PAD;
  for (const col of layers) {
    const height = Math.max(...col.map((n) => size(n).height));
    let x = PAD + (widest - rowWidth(col)) / 2;
    for (const n of col) {
      const s = size(n);
      boxes.set(n.id, { x, y: y + (height - s.height) / 2, ...s });
      x += s.width + DOWN_GAP_X;
    }
    y += height + DOWN_GAP_Y;
  }
  let width = widest + 2 * PAD;
  if (endAside) {
    boxes.set(endAside.id, { x: PAD + widest + END_ASIDE_GAP, y: PAD, ...size(endAside) });
    width += END_ASIDE_GAP + size(endAside).width;
  }
  return { nodes: boxes, edges: new Map(), width, height: y - DOWN_GAP_Y + PAD, vertical: true };
}
