"use client";

import "@xyflow/react/dist/style.css";
import { Background, ControlButton, Controls, ReactFlow, ReactFlowProvider } from "@xyflow/react";
import { type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { type LayoutJson, layoutFromJson } from "@/shared/canvas/elk-layout";
import { boundsOf } from "@/components/canvas/canvas-overflow";
import { EdgeLayer } from "@/components/canvas/edge-layer";
import type { GraphFlowNode, RoutedFlowEdge } from "@/components/canvas/flow-types";
import { GraphNode } from "@/components/canvas/graph-node";
import type { NodeRunState } from "@/shared/canvas/node-state";
import { PanHint } from "@/components/canvas/pan-hint";
import type { PulseAnimator } from "@/components/canvas/pulse-animator";
import { PulseLayer } from "@/components/canvas/pulse-layer";
import { TerminalNode } from "@/components/canvas/terminal-node";
import type { Topology } from "@/shared/canvas/topology";
import { useAutoFit } from "@/components/canvas/use-auto-fit";
import { useFollowActive } from "@/components/canvas/use-follow-active";
import { useFlowElements } from "@/components/canvas/use-flow-elements";
import { useTheme } from "@/components/shell/theme";
import { type LaidOut, useGraphLayout } from "@/components/canvas/use-graph-layout";
import { FIT } from "@/components/canvas/view-follow";

const NODE_TYPES = { graph: GraphNode, terminal: TerminalNode };
/** React Flow draws no edges: the canvas does (EdgeLayer), without a store subscription per edge. */
const NO_EDGES: RoutedFlowEdge[] = [];
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
  /**
   * A count the page bumps when the layout around the canvas really changes though the window did not
   * (the user resized a panel beside it). The canvas fits again when its size changes with the window
   * or after such a bump, never for anything else (a banner above it coming or going).
   */
  layoutChanges?: { readonly current: number };
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

function CanvasInner({ laid, nodes, edges, onNodeClick, animator, overlay, testId = "topology-canvas", fitMinZoom, layoutChanges, states }: CanvasInnerProps) {
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

  const nodeSetKey = useMemo(() => shownTopology?.nodes.map((n) => n.id).join(",") ?? "", [shownTopology]);
  const fit = useAutoFit({ fitMinZoom, nodeSetKey, layoutFinal: laid.final, layoutChanges });
  // A live run wider than the canvas keeps its active node in sight (a spec preview has no states).
  useFollowActive({ states, boxes: layout?.nodes, following: fit.following });
  const bounds = useMemo(() => (layout ? boundsOf(layout.nodes.values()) : null), [layout]);
  // The pan hint has done its work once the user has moved the view by hand.
  const [movedByHand, setMovedByHand] = useState(false);
  const theme = useTheme(); // React Flow's own controls and defaults in the app's theme, live
  const fitOnMove = fit.onMove;
  const onMove = useCallback(
    (event: unknown) => {
      fitOnMove(event);
      if (event) setMovedByHand(true);
    },
    [fitOnMove],
  );

  return (
    <div
      data-testid={testId}
      data-node-count={nodes.length}
      data-edge-count={edges.length}
      data-layout={laid.final ? "final" : "provisional"}
      ref={fit.box}
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
        colorMode={theme}
        onMove={onMove}
        fitView
        fitViewOptions={FIT}
      >
        <Background gap={20} size={1} color="var(--color-zinc-800)" />
        {layout && <EdgeLayer edges={edges} boxes={layout.nodes} vertical={layout.vertical} />}
        {/* The fit button is ours, so that it and every automatic fit share one fit (use-auto-fit.ts). */}
        <Controls showInteractive={false} showFitView={false} position="bottom-right" onZoomIn={fit.onZoomButton} onZoomOut={fit.onZoomButton}>
          <ControlButton onClick={fit.fitWhole} className="react-flow__controls-fitview" title="Fit View" aria-label="Fit View">
            <FitViewIcon />
          </ControlButton>
        </Controls>
        {animator && <PulseLayer animator={animator} />}
        <PanHint bounds={bounds} dismissed={movedByHand} />
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

/** React Flow's own fit icon (its Controls do not export it). */
function FitViewIcon() {
  return (
    <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 30" aria-hidden="true">
      <path d="M3.692 4.63c0-.53.4-.938.939-.938h5.215V0H4.708C2.13 0 0 2.054 0 4.63v5.216h3.692V4.631zM27.354 0h-5.2v3.692h5.17c.53 0 .984.4.984.939v5.215H32V4.631A4.624 4.624 0 0027.354 0zm.954 24.83c0 .532-.4.94-.939.94h-5.215v3.768h5.215c2.577 0 4.631-2.13 4.631-4.707v-5.139h-3.692v5.139zm-23.677.94c-.531 0-.939-.4-.939-.94v-5.138H0v5.139c0 2.577 2.13 4.707 4.708 4.707h5.138V25.77H4.631z" />
    </svg>
  );
}
