import { stronglyConnected } from "@/shared/canvas/strongly-connected";

/**
 * The shape every canvas draws: the spec preview and the instance view both reduce their data to a
 * Topology, so layout, nodes and pulses have one model. Plain TypeScript, no React.
 */

/** Names the engine gives the two real nodes every graph has. */
export const START = "__start__";
export const END = "__end__";

export type TopoNodeKind = "start" | "end" | "node";

export interface TopoNode {
  readonly id: string;
  readonly kind: TopoNodeKind;
  /** node_type from the spec (function, delay, human_input, ...); empty for START/END. */
  readonly nodeType: string;
  /** Waits on several predecessors (ON_ALL_PREDS) or is a `join` node. */
  readonly isJoin: boolean;
  readonly description?: string;
  /** 1-based line and column of the node's entry in the YAML, when it came from text. */
  readonly line?: number;
  readonly column?: number;
}

export interface TopoEdge {
  readonly id: string;
  readonly source: string;
  readonly target: string;
}

export type WrapShape = "square" | "wide";

export interface Topology {
  readonly nodes: readonly TopoNode[];
  readonly edges: readonly TopoEdge[];
  /** Drawn with run states (the instance canvas): node cards get a state line (node-card.ts). */
  readonly runStates?: boolean;
  /**
   * Laid out in rows that wrap, for the shape of the canvas it is drawn on: a chain wider than the
   * canvas then reads in lines, as text does, rather than being cut at its END (elk-layout.ts).
   * `square`: the editor's preview, about as tall as it is wide beside the YAML. `wide`: the instance
   * canvas, wider than tall beside the run's side panel (one row when it reads whole in it).
   */
  readonly wrap?: WrapShape;
}

export const edgeId = (source: string, target: string): string => `${source}->${target}`;

export function displayName(id: string): string {
  if (id === START) return "START";
  if (id === END) return "END";
  return id;
}

/** Everything that changes the layout; descriptions and positions in the text do not. */
export function layoutKey(topology: Topology): string {
  const nodes = topology.nodes.map((n) => `${n.id}:${n.kind}:${n.isJoin ? 1 : 0}`).join(",");
  const edges = topology.edges.map((e) => e.id).join(",");
  return `${topology.runStates ? "run|" : ""}${topology.wrap ? `wrap-${topology.wrap}|` : ""}${nodes}|${edges}`;
}

/**
 * The editor preview's topology: in wrapped rows. One function for the server's first layout (the
 * editor page) and the browser's, so their layout keys agree and the browser does not lay it out again.
 */
export function inRows(topology: Topology): Topology {
  return topology.wrap === "square" ? topology : { ...topology, wrap: "square" };
}

/**
 * Marks a node as a join when it waits for several branches: two or more distinct predecessors that are
 * not behind it in a loop. A loop's entry (counter-loop's `tick`: START and its own loop body `check`)
 * does not wait for its loop to come round, so it is no join. A predecessor is behind a node in a loop
 * exactly when both are in one strongly connected component.
 */
export function withJoins(nodes: readonly TopoNode[], edges: readonly TopoEdge[]): TopoNode[] {
  const preds = new Map<string, Set<string>>();
  for (const e of edges) {
    const set = preds.get(e.target) ?? new Set<string>();
    set.add(e.source);
    preds.set(e.target, set);
  }
  const candidates = nodes.filter((n) => n.kind === "node" && !n.isJoin && (preds.get(n.id)?.size ?? 0) >= 2);
  if (candidates.length === 0) return [...nodes];
  const component = stronglyConnected(
    nodes.map((n) => n.id),
    edges,
  );
  const joins = new Set(candidates.filter((n) => [...preds.get(n.id)!].filter((p) => component.get(p) !== component.get(n.id)).length >= 2).map((n) => n.id));
  return nodes.map((n) => (joins.has(n.id) ? { ...n, isJoin: true } : n));
}
