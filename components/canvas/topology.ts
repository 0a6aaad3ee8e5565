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

export interface Topology {
  readonly nodes: readonly TopoNode[];
  readonly edges: readonly TopoEdge[];
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
  return `${nodes}|${edges}`;
}

/** Marks a node as a join when it has two or more distinct predecessors. */
export function withJoins(nodes: readonly TopoNode[], edges: readonly TopoEdge[]): TopoNode[] {
  const preds = new Map<string, Set<string>>();
  for (const e of edges) {
    const set = preds.get(e.target) ?? new Set<string>();
    set.add(e.source);
    preds.set(e.target, set);
  }
  return nodes.map((n) => (n.kind === "node" && !n.isJoin && (preds.get(n.id)?.size ?? 0) >= 2 ? { ...n, isJoin: true } : n));
}
