"use client";

import { type NodeHandle, Position } from "@xyflow/react";
import { useMemo, useRef } from "react";
import { backEdges } from "@/shared/canvas/back-edges";
import { sizeOf } from "@/shared/canvas/elk-layout";
import type { GraphFlowNode, RoutedFlowEdge } from "@/components/canvas/flow-types";
import { nodeCard } from "@/shared/canvas/node-card";
import type { NodeRunState } from "@/shared/canvas/node-state";
import type { Topology, TopoNode } from "@/shared/canvas/topology";
import type { LaidOut } from "@/components/canvas/use-graph-layout";

const HANDLE = 6;
const BORDER = 1;

/**
 * Where the node components draw their handles (port.tsx): 6 px dots centred on the inner edge of the
 * 1 px border, target mid-left, source mid-right (top and bottom in a graph laid out top to bottom). The same numbers React Flow measures from the DOM,
 * so a node measured on mount and one replaced later attach their edges at the same point.
 */
function handlesOf(n: TopoNode, topology: Topology, vertical: boolean): NodeHandle[] {
  const { width, height } = sizeOf(n, topology);
  const y = height / 2 - HANDLE / 2;
  const x = width / 2 - HANDLE / 2;
  const dot = { width: HANDLE, height: HANDLE };
  // Laid out top to bottom: the edges enter the top's middle and leave the bottom's (port.tsx).
  const target: NodeHandle = vertical ? { type: "target", position: Position.Top, x, y: BORDER - HANDLE / 2, ...dot } : { type: "target", position: Position.Left, x: BORDER - HANDLE / 2, y, ...dot };
  const source: NodeHandle = vertical ? { type: "source", position: Position.Bottom, x, y: height - BORDER - HANDLE / 2, ...dot } : { type: "source", position: Position.Right, x: width - BORDER - HANDLE / 2, y, ...dot };
  return n.kind === "start" ? [source] : n.kind === "end" ? [target] : [target, source];
}

/**
 * The same array again when every item is the same object: React Flow then skips its store update,
 * which runs a selector in every node and edge (an edge edit leaves the nodes alone, and so on).
 */
function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Line and column are left out: an Enter above would otherwise redraw every node below it. */
function sameTopoNode(a: TopoNode, b: TopoNode): boolean {
  return a === b || (a.id === b.id && a.nodeType === b.nodeType && a.isJoin === b.isJoin && a.description === b.description && a.kind === b.kind);
}

export interface FlowDecorations {
  states?: ReadonlyMap<string, NodeRunState>;
  captions?: ReadonlyMap<string, string>;
  highlightNodes: ReadonlySet<string>;
  highlightEdges: ReadonlySet<string>;
  activeEdges: ReadonlySet<string>;
  selectedNode?: string | null;
}

/** React Flow's nodes and edges for a laid-out topology and what the caller marks on it (run states, highlights). */
export function useFlowElements(laid: LaidOut, { states, captions, highlightNodes, highlightEdges, activeEdges, selectedNode }: FlowDecorations): { nodes: GraphFlowNode[]; edges: RoutedFlowEdge[] } {
  // Node and edge objects are reused while nothing about them changed, so React Flow re-renders only
  // the nodes a keystroke or an event touched (not all 200).
  const nodeCache = useRef(new Map<string, GraphFlowNode>());
  const edgeCache = useRef(new Map<string, RoutedFlowEdge>());

  const nodesRef = useRef<GraphFlowNode[]>([]);
  const edgesRef = useRef<RoutedFlowEdge[]>([]);

  const { topology: shownTopology, layout } = laid;
  const nodes = useMemo<GraphFlowNode[]>(() => {
    if (!shownTopology || !layout) return [];
    const cache = nodeCache.current;
    const next = shownTopology.nodes.map((n) => {
      const box = layout.nodes.get(n.id);
      const state = states?.get(n.id);
      const caption = captions?.get(n.id);
      const highlighted = highlightNodes.has(n.id);
      const selected = selectedNode === n.id;
      const card = n.kind === "node" ? nodeCard(n.id, !!shownTopology.runStates) : undefined;
      const x = box?.x ?? 0;
      const y = box?.y ?? 0;
      const vertical = !!layout.vertical;
      const old = cache.get(n.id);
      if (
        old &&
        !!old.data.vertical === vertical &&
        old.position.x === x &&
        old.position.y === y &&
        old.selected === selected &&
        old.data.state === state &&
        old.data.caption === caption &&
        old.data.highlighted === highlighted &&
        old.data.card === card &&
        sameTopoNode(old.data.topo, n)
      ) {
        return old;
      }
      // React Flow hides a node until it has a size; a replaced node object loses its measured size,
      // and nothing re-measures an element whose size did not change. Every node's size is known from
      // its content (node-card.ts), so it is given up front, with its handles: a moved node then needs
      // no DOM measurement (which cost a second commit of every edge touching it after each relayout).
      const size = sizeOf(n, shownTopology);
      const node: GraphFlowNode = {
        id: n.id,
        type: n.kind === "node" ? "graph" : "terminal",
        position: { x, y },
        initialWidth: size.width,
        initialHeight: size.height,
        measured: size,
        handles: handlesOf(n, shownTopology, vertical),
        data: { topo: n, state, caption, highlighted, card, vertical },
        selected,
        draggable: false,
        connectable: false,
      };
      return node;
    });
    nodeCache.current = new Map(next.map((n) => [n.id, n]));
    nodesRef.current = sameItems(nodesRef.current, next) ? nodesRef.current : next;
    return nodesRef.current;
  }, [shownTopology, layout, states, captions, highlightNodes, selectedNode]);

  const edges = useMemo<RoutedFlowEdge[]>(() => {
    if (!shownTopology || !layout) return [];
    const cache = edgeCache.current;
    const loops = backEdges(shownTopology);
    const next = shownTopology.edges.map((e) => {
      const points = layout.edges.get(e.id);
      const highlighted = highlightEdges.has(e.id);
      const active = activeEdges.has(e.id);
      const loop = loops.has(e.id);
      const old = cache.get(e.id);
      if (old && old.data?.points === points && old.data?.highlighted === highlighted && old.data?.active === active && old.data?.loop === loop) return old;
      const edge: RoutedFlowEdge = {
        id: e.id,
        source: e.source,
        target: e.target,
        type: "routed",
        data: { points, highlighted, active, loop },
        selectable: false,
      };
      return edge;
    });
    edgeCache.current = new Map(next.map((e) => [e.id, e]));
    edgesRef.current = sameItems(edgesRef.current, next) ? edgesRef.current : next;
    return edgesRef.current;
  }, [shownTopology, layout, highlightEdges, activeEdges]);

  return { nodes, edges };
}
