import ELK from "elkjs/lib/elk-api.js";
import type { ElkExtendedEdge, ElkNode } from "elkjs/lib/elk-api.js";
import { nodeCard } from "@/shared/canvas/node-card";
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
 * link, not a fan-out's) into rows of about 1.2 : 1. Measured on the examples and a 12-node chain: each
 * fits the preview at 1440 and 1024 px, the chain at zoom 0.97 at 1280 px (unwrapped: 0.3).
 */
const WRAP_OPTIONS: Record<string, string> = {
  "elk.layered.wrapping.strategy": "SINGLE_EDGE",
  "elk.aspectRatio": "1.2",
};

/** The ELK graph of a topology (sizes, START first and END last). */
function elkGraphOf(topology: Topology): ElkNode {
  return {
    id: "root",
    layoutOptions: topology.wrap ? { ...LAYOUT_OPTIONS, ...WRAP_OPTIONS } : LAYOUT_OPTIONS,
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

/** Lays a topology out with a given ELK instance: the browser's worker, or the server's worker thread (server/api/instance-layout.ts). */
export async function layoutWith(elkInstance: { layout(graph: ElkNode): Promise<ElkNode> }, topology: Topology): Promise<GraphLayout> {
  const out = await elkInstance.layout(elkGraphOf(topology));
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
  return { nodes, edges, width: out.width ?? 0, height: out.height ?? 0 };
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
}

export function layoutToJson(key: string, layout: GraphLayout): LayoutJson {
  return { key, nodes: [...layout.nodes], edges: [...layout.edges], width: layout.width, height: layout.height };
}

export function layoutFromJson(json: LayoutJson): { key: string; layout: GraphLayout } {
  return { key: json.key, layout: { nodes: new Map(json.nodes), edges: new Map(json.edges), width: json.width, height: json.height } };
}
