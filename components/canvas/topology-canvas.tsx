"use client";

import "@xyflow/react/dist/style.css";
import { Background, Controls, MarkerType, type NodeHandle, Position, ReactFlow, ReactFlowProvider, useReactFlow } from "@xyflow/react";
import { type ReactNode, useCallback, useEffect, useMemo, useRef } from "react";
import { sizeOf } from "@/components/canvas/elk-layout";
import type { GraphFlowNode, RoutedFlowEdge } from "@/components/canvas/flow-types";
import { GraphNode } from "@/components/canvas/graph-node";
import type { NodeRunState } from "@/components/canvas/node-state";
import type { PulseAnimator } from "@/components/canvas/pulse-animator";
import { PulseLayer } from "@/components/canvas/pulse-layer";
import { runsBackward } from "@/components/canvas/polyline";
import { RoutedEdge } from "@/components/canvas/routed-edge";
import { TerminalNode } from "@/components/canvas/terminal-node";
import type { Topology, TopoNode } from "@/components/canvas/topology";
import { useGraphLayout } from "@/components/canvas/use-graph-layout";

const NODE_TYPES = { graph: GraphNode, terminal: TerminalNode };
const EDGE_TYPES = { routed: RoutedEdge };
const NO_SET: ReadonlySet<string> = new Set();

export interface TopologyCanvasProps {
  topology: Topology | null;
  states?: ReadonlyMap<string, NodeRunState>;
  captions?: ReadonlyMap<string, string>;
  highlightNodes?: ReadonlySet<string>;
  highlightEdges?: ReadonlySet<string>;
  activeEdges?: ReadonlySet<string>;
  selectedNode?: string | null;
  onNodeClick?: (id: string) => void;
  animator?: PulseAnimator;
  /** Shown over the canvas (an error banner, a legend). */
  overlay?: ReactNode;
  testId?: string;
}

/** A read-only, auto-laid-out drawing of a topology: the spec preview and the instance canvas. */
export function TopologyCanvas(props: TopologyCanvasProps) {
  return (
    <ReactFlowProvider>
      <CanvasInner {...props} />
    </ReactFlowProvider>
  );
}

const HANDLE = 6;
const BORDER = 1;

/**
 * Where the node components draw their handles (port.tsx): 6 px dots centred on the inner edge of the
 * 1 px border, target mid-left, source mid-right. The same numbers React Flow measures from the DOM,
 * so a node measured on mount and one replaced later attach their edges at the same point.
 */
function handlesOf(n: TopoNode): NodeHandle[] {
  const { width, height } = sizeOf(n);
  const y = height / 2 - HANDLE / 2;
  const target: NodeHandle = { type: "target", position: Position.Left, x: BORDER - HANDLE / 2, y, width: HANDLE, height: HANDLE };
  const source: NodeHandle = { type: "source", position: Position.Right, x: width - BORDER - HANDLE / 2, y, width: HANDLE, height: HANDLE };
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

function CanvasInner({
  topology,
  states,
  captions,
  highlightNodes = NO_SET,
  highlightEdges = NO_SET,
  activeEdges = NO_SET,
  selectedNode,
  onNodeClick,
  animator,
  overlay,
  testId = "topology-canvas",
}: TopologyCanvasProps) {
  const laid = useGraphLayout(topology);
  const { fitView } = useReactFlow();
  // One handler for the canvas's lifetime: a new one per render would update React Flow's store
  // (and run every node's and edge's selectors) on each keystroke.
  const onNodeClickRef = useRef(onNodeClick);
  onNodeClickRef.current = onNodeClick;
  const handleNodeClick = useCallback((_e: unknown, node: { id: string }) => onNodeClickRef.current?.(node.id), []);

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
      const x = box?.x ?? 0;
      const y = box?.y ?? 0;
      const old = cache.get(n.id);
      if (
        old &&
        old.position.x === x &&
        old.position.y === y &&
        old.selected === selected &&
        old.data.state === state &&
        old.data.caption === caption &&
        old.data.highlighted === highlighted &&
        sameTopoNode(old.data.topo, n)
      ) {
        return old;
      }
      // React Flow hides a node until it has a size; a replaced node object loses its measured size,
      // and nothing re-measures an element whose size did not change. Every node's size is fixed, so
      // it is given up front, with its handles: a moved node then needs no DOM measurement (which
      // cost a second commit of every edge touching it after each relayout).
      const size = sizeOf(n);
      const node: GraphFlowNode = {
        id: n.id,
        type: n.kind === "node" ? "graph" : "terminal",
        position: { x, y },
        initialWidth: size.width,
        initialHeight: size.height,
        measured: size,
        handles: handlesOf(n),
        data: { topo: n, state, caption, highlighted },
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
    const next = shownTopology.edges.map((e) => {
      const points = layout.edges.get(e.id);
      const highlighted = highlightEdges.has(e.id);
      const active = activeEdges.has(e.id);
      const old = cache.get(e.id);
      if (old && old.data?.points === points && old.data?.highlighted === highlighted && old.data?.active === active) return old;
      const loop = points ? runsBackward(points) : false;
      const edge: RoutedFlowEdge = {
        id: e.id,
        source: e.source,
        target: e.target,
        type: "routed",
        data: { points, highlighted, active },
        markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16, color: highlighted ? "#a5b4fc" : loop ? "#a78bfa" : "#71717a" },
        selectable: false,
      };
      return edge;
    });
    edgeCache.current = new Map(next.map((e) => [e.id, e]));
    edgesRef.current = sameItems(edgesRef.current, next) ? edgesRef.current : next;
    return edgesRef.current;
  }, [shownTopology, layout, highlightEdges, activeEdges]);

  useEffect(() => {
    if (!layout || !shownTopology || !animator) return;
    // An edge without a route yet (a stand-in layout) still carries pulses: straight between its ports.
    const routes = new Map(layout.edges);
    for (const e of shownTopology.edges) {
      const a = layout.nodes.get(e.source);
      const b = layout.nodes.get(e.target);
      if (!routes.has(e.id) && a && b) routes.set(e.id, [{ x: a.x + a.width, y: a.y + a.height / 2 }, { x: b.x, y: b.y + b.height / 2 }]);
    }
    animator.setRoutes(routes);
  }, [layout, shownTopology, animator]);

  // Fit when the set of nodes changes (not when an edge moves: the view would jump while typing).
  // Once more when ELK's layout for a new set of nodes replaces the stand-in it was first fitted to.
  const nodeSetKey = useMemo(() => shownTopology?.nodes.map((n) => n.id).join(",") ?? "", [shownTopology]);
  const fittedFinal = useRef<string | null>(null);
  const fitFinal = laid.final && fittedFinal.current !== nodeSetKey;
  useEffect(() => {
    if (!nodeSetKey) return;
    if (laid.final) fittedFinal.current = nodeSetKey;
    const id = requestAnimationFrame(() => void fitView({ padding: 0.12, maxZoom: 1.1, duration: 0 }));
    return () => cancelAnimationFrame(id);
    // `laid.final` is read only when the node set changes or ELK lands for a new one.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [nodeSetKey, fitFinal, fitView]);

  return (
    <div
      data-testid={testId}
      data-node-count={nodes.length}
      data-edge-count={edges.length}
      className="relative h-full w-full"
    >
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        edgeTypes={EDGE_TYPES}
        onNodeClick={onNodeClick ? handleNodeClick : undefined}
        nodesDraggable={false}
        nodesConnectable={false}
        edgesFocusable={false}
        minZoom={0.1}
        maxZoom={2}
        proOptions={{ hideAttribution: true }}
        colorMode="dark"
        fitView
      >
        <Background gap={20} size={1} color="#27272a" />
        <Controls showInteractive={false} position="bottom-right" />
        {animator && <PulseLayer animator={animator} />}
      </ReactFlow>
      {laid.error && (
        <p className="absolute left-3 top-3 rounded-md border border-rose-500/40 bg-rose-950/80 px-2 py-1 text-xs text-rose-200">
          Layout failed: {laid.error}
        </p>
      )}
      {overlay}
    </div>
  );
}
