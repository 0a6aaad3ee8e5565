"use client";

import "@xyflow/react/dist/style.css";
import { Background, Controls, ReactFlow, ReactFlowProvider, useReactFlow } from "@xyflow/react";
import { type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { type LayoutJson, layoutFromJson } from "@/components/canvas/elk-layout";
import { EdgeLayer } from "@/components/canvas/edge-layer";
import type { GraphFlowNode, RoutedFlowEdge } from "@/components/canvas/flow-types";
import { GraphNode } from "@/components/canvas/graph-node";
import type { NodeRunState } from "@/components/canvas/node-state";
import type { PulseAnimator } from "@/components/canvas/pulse-animator";
import { PulseLayer } from "@/components/canvas/pulse-layer";
import { TerminalNode } from "@/components/canvas/terminal-node";
import type { Topology } from "@/components/canvas/topology";
import { useFlowElements } from "@/components/canvas/use-flow-elements";
import { type LaidOut, useGraphLayout } from "@/components/canvas/use-graph-layout";

const NODE_TYPES = { graph: GraphNode, terminal: TerminalNode };
/** React Flow draws no edges: the canvas does (EdgeLayer), without a store subscription per edge. */
const NO_EDGES: RoutedFlowEdge[] = [];
const NO_SET: ReadonlySet<string> = new Set();
const FIT = { padding: 0.12, maxZoom: 1.1 } as const;

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
  /**
   * The canvas's expected size at the page's usual width, for the server-rendered frame: the flow is
   * fitted to it there (the real size is only known in the browser, which fits again at once).
   */
  sizeHint?: { width: number; height: number };
  /** ELK's layout of `topology`, computed elsewhere (the server): shown at once, and ELK is not asked. */
  initialLayout?: LayoutJson | null;
  /**
   * The least zoom fitting the view may pick, so text stays readable; a graph too large for it then
   * overflows, shown from its start (left edge) so that it reads from START, and pans.
   */
  fitMinZoom?: number;
}

/**
 * A read-only, auto-laid-out drawing of a topology: the spec preview and the instance canvas.
 *
 * The layout and React Flow's nodes and edges are computed here, outside the flow's provider, so the
 * provider's store starts with them: the server then renders the nodes and edges into the page's
 * HTML (React Flow draws nothing on the server otherwise), and the page shows the graph before its
 * scripts have run.
 */
export function TopologyCanvas({ highlightNodes = NO_SET, highlightEdges = NO_SET, activeEdges = NO_SET, initialLayout, ...props }: TopologyCanvasProps) {
  const [seed] = useState(() => (initialLayout ? layoutFromJson(initialLayout) : null));
  const laid = useGraphLayout(props.topology, seed);
  const { nodes, edges } = useFlowElements(laid, { states: props.states, captions: props.captions, highlightNodes, highlightEdges, activeEdges, selectedNode: props.selectedNode });
  return (
    <ReactFlowProvider
      initialNodes={nodes}
      initialEdges={NO_EDGES}
      initialWidth={props.sizeHint?.width}
      initialHeight={props.sizeHint?.height}
      initialFitViewOptions={FIT}
      fitView={!!props.sizeHint}
      initialMinZoom={MIN_ZOOM}
      initialMaxZoom={MAX_ZOOM}
    >
      <CanvasInner {...props} laid={laid} nodes={nodes} edges={edges} />
    </ReactFlowProvider>
  );
}

const MIN_ZOOM = 0.1;
const MAX_ZOOM = 2;

interface CanvasInnerProps extends TopologyCanvasProps {
  laid: LaidOut;
  nodes: GraphFlowNode[];
  edges: RoutedFlowEdge[];
}

function CanvasInner({ laid, nodes, edges, onNodeClick, animator, overlay, testId = "topology-canvas", fitMinZoom }: CanvasInnerProps) {
  const { fitView, getViewport, setViewport, getNodesBounds, getNodes } = useReactFlow();
  // One handler for the canvas's lifetime: a new one per render would update React Flow's store
  // (and run every node's and edge's selectors) on each keystroke.
  const onNodeClickRef = useRef(onNodeClick);
  onNodeClickRef.current = onNodeClick;
  const handleNodeClick = useCallback((_e: unknown, node: { id: string }) => onNodeClickRef.current?.(node.id), []);

  const { topology: shownTopology, layout } = laid;
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

  /**
   * How a change of the canvas's size fits the view again: as when it opened ("readable": down to
   * `fitMinZoom`, from the left), whole (the fit button was pressed last), or not at all once the user
   * has panned or zoomed by hand (their view stays theirs until the node set changes or they fit it).
   */
  const refit = useRef<"readable" | "whole" | null>("readable");
  const fitReadable = useCallback(
    () =>
      void fitView({ ...FIT, minZoom: fitMinZoom, duration: 0 }).then(() => {
        if (fitMinZoom === undefined) return;
        const vp = getViewport();
        const left = getNodesBounds(getNodes()).x * vp.zoom + vp.x;
        if (left < 0) void setViewport({ ...vp, x: vp.x - left + 24 });
      }),
    [fitView, fitMinZoom, getViewport, getNodesBounds, getNodes, setViewport],
  );
  // React Flow passes the DOM event of a pan or zoom by hand (drag, wheel, pinch), none for our own fits.
  const onMove = useCallback((event: unknown) => {
    if (event) refit.current = null;
  }, []);
  const zoomedByHand = useCallback(() => void (refit.current = null), []);
  const fittedWhole = useCallback(() => void (refit.current = "whole"), []);

  // Fit when the set of nodes changes (not when an edge moves: the view would jump while typing).
  // Once more when ELK's layout for a new set of nodes replaces the stand-in it was first fitted to.
  const nodeSetKey = useMemo(() => shownTopology?.nodes.map((n) => n.id).join(",") ?? "", [shownTopology]);
  const fittedFinal = useRef<string | null>(null);
  const fitFinal = laid.final && fittedFinal.current !== nodeSetKey;
  useEffect(() => {
    if (!nodeSetKey) return;
    if (laid.final) fittedFinal.current = nodeSetKey;
    refit.current = "readable";
    const id = requestAnimationFrame(fitReadable);
    return () => cancelAnimationFrame(id);
    // `laid.final` is read only when the node set changes or ELK lands for a new one.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [nodeSetKey, fitFinal, fitReadable]);

  // Fit again when the canvas's size changes (the window, a panel beside it), unless the user moved the view.
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    let size: string | null = null;
    let frame = 0;
    const observer = new ResizeObserver(([entry]) => {
      const next = `${Math.round(entry.contentRect.width)}x${Math.round(entry.contentRect.height)}`;
      // The first size is the one the canvas opened at: the node-set fit above covers it.
      const changed = size !== null && next !== size;
      size = next;
      if (!changed || !refit.current) return;
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => (refit.current === "whole" ? void fitView({ ...FIT, duration: 0 }) : fitReadable()));
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      cancelAnimationFrame(frame);
    };
  }, [fitView, fitReadable]);

  return (
    <div
      data-testid={testId}
      data-node-count={nodes.length}
      data-edge-count={edges.length}
      data-layout={laid.final ? "final" : "provisional"}
      ref={box}
      className="relative h-full w-full"
    >
      <ReactFlow
        nodes={nodes}
        edges={NO_EDGES}
        nodeTypes={NODE_TYPES}
        onNodeClick={onNodeClick ? handleNodeClick : undefined}
        nodesDraggable={false}
        nodesConnectable={false}
        edgesFocusable={false}
        minZoom={MIN_ZOOM}
        maxZoom={MAX_ZOOM}
        proOptions={{ hideAttribution: true }}
        colorMode="dark"
        onMove={onMove}
        fitView
      >
        <Background gap={20} size={1} color="#27272a" />
        {layout && <EdgeLayer edges={edges} boxes={layout.nodes} />}
        <Controls showInteractive={false} position="bottom-right" onZoomIn={zoomedByHand} onZoomOut={zoomedByHand} onFitView={fittedWhole} />
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
