import type { Edge, Node } from "@xyflow/react";
import type { Point } from "@/shared/canvas/elk-layout";
import type { NodeCard } from "@/shared/canvas/node-card";
import type { NodeRunState } from "@/shared/canvas/node-state";
import type { TopoNode } from "@/shared/canvas/topology";

/** Data the canvas hands its React Flow node and edge components. */
export interface GraphNodeData extends Record<string, unknown> {
  topo: TopoNode;
  state?: NodeRunState;
  /** Short caption under the name (e.g. "2 runs · 14 ms"). */
  caption?: string;
  highlighted?: boolean;
  /** A declared node's card: its size and name lines, as the layout sized it (node-card.ts). */
  card?: NodeCard;
  /** The graph is laid out top to bottom (GraphLayout.vertical): ports at the top and bottom. */
  vertical?: boolean;
}

export interface RoutedEdgeData extends Record<string, unknown> {
  points?: readonly Point[];
  highlighted?: boolean;
  /** A delivery crossed it in the run being watched. */
  active?: boolean;
  /** It closes a loop (back-edges.ts): drawn dashed. */
  loop?: boolean;
}

export type GraphFlowNode = Node<GraphNodeData, "graph" | "terminal">;
export type RoutedFlowEdge = Edge<RoutedEdgeData, "routed">;
