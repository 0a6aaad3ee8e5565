import ELK from "elkjs/lib/elk-api.js";
import type { ElkExtendedEdge, ElkNode } from "elkjs/lib/elk-api.js";
import { nodeCard } from "@/shared/canvas/node-card";
import { boundsOf, fitZoom, RUN_CANVAS } from "@/shared/canvas/canvas-fit";
import type { Topology, TopoNode } from "@/shared/canvas/topology";

/**
 * Layered left-to-right layout of a Topology with ELK, computed in a web worker so typing and
 * animation never wait on it; a wrapped topology's layers in rows. Edges come back as orthogonal
 * polylines (ELK routes loops around the nodes, which keeps cycles readable); the canvas draws them as
 * they are.
 */

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface NodeBox {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface GraphLayout {
  readonly nodes: ReadonlyMap<string, NodeBox>;
  readonly edges: ReadonlyMap<string, readonly Point[]>;
  readonly width: number;
  readonly height: number;
  /** Laid out top to bottom (a wrapped fan-out, see pickWrapped): edges leave a node's bottom and enter its top. */
  readonly vertical?: boolean;
}

/** The smallest card (a short name, no state line): ELK's warm-up layout. */
export const NODE_SIZE = { width: 160, height: 52 } as const;
export const TERMINAL_SIZE = { width: 96, height: 36 } as const;

/** A node's box as drawn: a declared node's card is sized from its name (node-card.ts), START and END are pills. */
export function sizeOf(node: TopoNode, topology: Pick<Topology, "runStates">): { width: number; height: number } {
  if (node.kind !== "node") return TERMINAL_SIZE;
  const { width, height } = nodeCard(node.id, !!topology.runStates);
  return { width, height };
}

let elk: InstanceType<typeof ELK> | undefined;

function engine(): InstanceType<typeof ELK> {
  // A classic worker (no `type: "module"`): Turbopack and webpack both bundle it from this URL.
  elk ??= new ELK({ workerFactory: () => new Worker(new URL("elkjs/lib/elk-worker.min.js", import.meta.url)) });
  return elk;
}

/**
 * Starts the layout worker ahead of the first layout: loading and compiling ELK takes a few hundred
 * milliseconds, which then overlaps with fetching the data to lay out.
 */
export function warmLayoutEngine(): void {
  if (elk) return;
  // A first, tiny layout compiles ELK's hot paths meanwhile (its first layout is several times slower).
  void engine()
    .layout({ id: "warm-up", layoutOptions: LAYOUT_OPTIONS, children: [{ id: "a", ...NODE_SIZE }, { id: "b", ...NODE_SIZE }], edges: [{ id: "e", sources: ["a"], targets: ["b"] }] })
    .catch(() => undefined);
}

const LAYOUT_OPTIONS: Record<string, string> = {
  "elk.algorithm": "layered",
  "elk.direction": "RIGHT",
  "elk.edgeRouting": "ORTHOGONAL",
  "elk.layered.spacing.nodeNodeBetweenLayers": "56",
  "elk.spacing.nodeNode": "28",
  "elk.spacing.edgeNode": "24",
  "elk.spacing.edgeEdge": "14",
  "elk.layered.nodePlacement.strategy": "BRANDES_KOEPF",
  "elk.layered.cycleBreaking.strategy": "DEPTH_FIRST",
  "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
  "elk.padding": "[top=24,left=24,bottom=24,right=24]",
};

/**
 * A wrapped topology's layout (Topology.wrap): ELK cuts the layers where a single edge crosses (a chain's
 * link, not a fan-out's) into rows of about `aspect` : 1. Measured on the examples and a 12-node chain
 * (aspect 1.2): each fits the preview at 1440 and 1024 px, the chain at zoom 0.97 at 1280 px (unwrapped: 0.3).
 */
const wrapOptions = (aspect: number): Record<string, string> => ({
  "elk.layered.wrapping.strategy": "SINGLE_EDGE",
  "elk.aspectRatio": String(aspect),
});

/** One drawing of a topology: left to right or top to bottom, in one row or wrapped at `wrap` : 1. */
interface Drawing {
  down: boolean;
  wrap?: number;
}

/**
 * How much smaller a wrapped graph's top-to-bottom drawing must be before it is preferred to the
 * left-to-right one, which reads as text does: a chain stays in rows, and only a fan-out whose
 * branches would make it wide turns (map-reduce: 812 px across, 584 px top to bottom).
 */
const VERTICAL_GAIN = 0.85;

/**
 * Above this many nodes a wrapped graph is laid out left to right only: it pans at a readable zoom
 * either way, and a second layout would double ELK's time where it is longest (300 nodes: seconds on
 * these machines), at each pause in typing.
 */
export const BOTH_WAYS_MAX_NODES = 60;

/**
 * Of a wrapped graph's two drawings, the one that fits a square at the larger zoom: the editor's
 * preview is about square (0.9 : 1 at 1024 px, 1.06 : 1 at 1440 px). A fan-out laid left to right is
 * five layers wide whatever the wrapping (a layer boundary its branches cross is never cut); laid top
 * to bottom its branches sit side by side, and it fits a 1024 px window's preview with its names 11 px
 * or larger (zoom 0.88, against 0.63). A square, not the canvas's real shape: the server lays the
 * page's graph out before any canvas exists, and the browser must agree with it (one layout key).
 */
function pickWrapped(across: GraphLayout, down: GraphLayout): GraphLayout {
  const extent = (l: GraphLayout) => Math.max(l.width, l.height);
  return extent(down) <= extent(across) * VERTICAL_GAIN ? down : across;
}

/**
 * The instance canvas's drawings, in the order they read best: one row as the run flows, rows that
 * wrap (fewer, then more: a chain of six reads in two, approval-gate's branch needs three), columns (a
 * fan-out's branches side by side). The first that fits the run canvas whole at its readable zoom
 * (RUN_CANVAS, a 1024 px window) is kept, else the one that fits it at the largest zoom. Laid out one
 * after another, stopping at the first that fits: most graphs take one layout, and the worker (one
 * thread) would run them in turn anyway. Measured on the examples (zoom at 1024 / 1440 px):
 * approval-gate in one row 0.42 / 0.69, in two rows 0.74, in three 0.86 / 1.13; map-reduce in one row
 * 0.63 / 1.03, in rows 0.74, in columns 0.80 / 1.16; release-notes and review-cycle stay in one row
 * (0.84 / 1.36).
 */
const WIDE_DRAWINGS: readonly Drawing[] = [{ down: false }, { down: false, wrap: 1.6 }, { down: false, wrap: 1.2 }, { down: true, wrap: 1.6 }];

async function layoutWide(once: (drawing: Drawing) => Promise<GraphLayout>): Promise<GraphLayout> {
  // What React Flow fits: the nodes' bounds, without ELK's padding.
  const zoom = (l: GraphLayout) => fitZoom(boundsOf(l.nodes.values()) ?? l, RUN_CANVAS);
  let best: GraphLayout | null = null;
  for (const drawing of WIDE_DRAWINGS) {
    const layout = await once(drawing);
    if (zoom(layout) >= RUN_CANVAS.minZoom) return layout;
    if (!best || zoom(layout) > zoom(best)) best = layout;
  }
  return best!;
}

/** The ELK graph of a topology (sizes, START first and END last) in one drawing. */
function elkGraphOf(topology: Topology, drawing: Drawing): ElkNode {
  const options = drawing.wrap ? { ...LAYOUT_OPTIONS, ...wrapOptions(drawing.wrap) } : LAYOUT_OPTIONS;
  return {
    id: "root",
    layoutOptions: drawing.down ? { ...options, "elk.direction": "DOWN" } : options,
    children: topology.nodes.map((n) => ({
      id: n.id,
      ...sizeOf(n, topology),
      layoutOptions: (n.kind === "start"
        ? { "elk.layered.layering.layerConstraint": "FIRST" }
        : n.kind === "end"
          ? { "elk.layered.layering.layerConstraint": "LAST" }
          : {}) as Record<string, string>,
    })),
    edges: topology.edges.map((e) => ({ id: e.id, sources: [e.source], targets: [e.target] })),
  };
}

type ElkInstance = { layout(graph: ElkNode): Promise<ElkNode> };

/**
 * Lays a topology out with a given ELK instance: the browser's worker, or the server's worker thread
 * (server/api/instance-layout.ts). A wrapped one in a few drawings, keeping the one that fits its canvas
 * best (pickWrapped for the editor's preview, layoutWide for the instance canvas); a graph of over 60
 * nodes in one drawing, left to right (rows for the preview, one row for a run).
 */
export async function layoutWith(elkInstance: ElkInstance, topology: Topology): Promise<GraphLayout> {
  const once = (drawing: Drawing) => layoutOnce(elkInstance, topology, drawing);
  const large = topology.nodes.length > BOTH_WAYS_MAX_NODES;
  switch (topology.wrap) {
    case undefined:
      return once({ down: false });
    case "square": {
      if (large) return once({ down: false, wrap: SQUARE_WRAP });
      const [across, down] = await Promise.all([once({ down: false, wrap: SQUARE_WRAP }), once({ down: true, wrap: SQUARE_WRAP })]);
      return pickWrapped(across, down);
    }
    case "wide":
      if (large) return once({ down: false });
      return layoutWide(once);
  }
}

/** The preview's rows: about 1.2 : 1, for its about square canvas. */
const SQUARE_WRAP = 1.2;

async function layoutOnce(elkInstance: ElkInstance, topology: Topology, drawing: Drawing): Promise<GraphLayout> {
  const out = await elkInstance.layout(elkGraphOf(topology, drawing));
  const nodes = new Map<string, NodeBox>();
  for (const c of out.children ?? []) {
    nodes.set(c.id, { x: c.x ?? 0, y: c.y ?? 0, width: c.width ?? NODE_SIZE.width, height: c.height ?? NODE_SIZE.height });
  }
  const edges = new Map<string, Point[]>();
  for (const e of (out.edges ?? []) as ElkExtendedEdge[]) {
    const s = e.sections?.[0];
    if (!s) continue;
    edges.set(e.id, [s.startPoint, ...(s.bendPoints ?? []), s.endPoint].map((p) => ({ x: p.x, y: p.y })));
  }
  return { nodes, edges, width: out.width ?? 0, height: out.height ?? 0, ...(drawing.down ? { vertical: true } : {}) };
}

export function layoutTopology(topology: Topology): Promise<GraphLayout> {
  return layoutWith(engine(), topology);
}

/** A layout as plain JSON (a server-rendered page hands it to the browser), with the layout key it is for. */
export interface LayoutJson {
  readonly key: string;
  readonly nodes: readonly (readonly [string, NodeBox])[];
  readonly edges: readonly (readonly [string, readonly Point[]])[];
  readonly width: number;
  readonly height: number;
  readonly vertical?: boolean;
}

export function layoutToJson(key: string, layout: GraphLayout): LayoutJson {
  return { key, nodes: [...layout.nodes], edges: [...layout.edges], width: layout.width, height: layout.height, ...(layout.vertical ? { vertical: true } : {}) };
}

export function layoutFromJson(json: LayoutJson): { key: string; layout: GraphLayout } {
  const layout = { nodes: new Map(json.nodes), edges: new Map(json.edges), width: json.width, height: json.height };
  return { key: json.key, layout: json.vertical ? { ...layout, vertical: true } : layout };
}
