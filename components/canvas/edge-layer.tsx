"use client";

import { getBezierPath, Position, type ReactFlowState, useStore } from "@xyflow/react";
import { memo, useId } from "react";
import type { NodeBox } from "@/shared/canvas/elk-layout";
import type { RoutedFlowEdge } from "@/components/canvas/flow-types";
import { roundedPath } from "@/components/canvas/polyline";

/** Where a node's handles put an edge's ends (port.tsx: 6 px dots on the 1 px border, mid-height). */
const PORT_OUT = 2;

const MARKER_COLORS = ["#71717a", "#a78bfa", "#a5b4fc"] as const;

const transformOf = (s: ReactFlowState) => s.transform;
const sameTransform = (a: ReactFlowState["transform"], b: ReactFlowState["transform"]) => a[0] === b[0] && a[1] === b[1] && a[2] === b[2];

/**
 * The canvas's edges, drawn by the canvas itself in one SVG under React Flow's layer, with React Flow's
 * viewport transform (so they pan and zoom with the nodes). React Flow is given no edges: each edge it
 * draws subscribes to its store, so every change of the edges (a keystroke that moves one) ran a
 * selector in all of them and rebuilt its connection lookup; here an edit re-renders only the edges
 * whose object changed. The canvas's edges are not interactive, so nothing React Flow does for edges is
 * lost. Rendered on the server too (the transform is the fitted one), so the page arrives with them.
 */
export function EdgeLayer({ edges, boxes, vertical = false }: { edges: readonly RoutedFlowEdge[]; boxes: ReadonlyMap<string, NodeBox>; vertical?: boolean }) {
  const [x, y, zoom] = useStore(transformOf, sameTransform);
  const ids = `edges${useId().replace(/[^a-zA-Z0-9]/g, "")}`;
  return (
    <svg
      aria-hidden="true"
      className="pointer-events-none absolute left-0 top-0 h-full w-full overflow-visible"
      style={{ zIndex: 1 }}
    >
      <defs>
        {MARKER_COLORS.map((color, i) => (
          <marker key={color} id={`${ids}-m${i}`} className="react-flow__arrowhead" markerWidth="16" markerHeight="16" viewBox="-10 -10 20 20" markerUnits="strokeWidth" orient="auto-start-reverse" refX="0" refY="0">
            <polyline style={{ strokeWidth: 1, stroke: color, fill: color }} strokeLinecap="round" strokeLinejoin="round" points="-5,-4 0,0 -5,4 -5,-4" />
          </marker>
        ))}
      </defs>
      <g transform={`translate(${x} ${y}) scale(${zoom})`}>
        {edges.map((e) => {
          // A routed edge does not depend on its nodes' boxes: it re-renders only when it changes.
          const routed = (e.data?.points?.length ?? 0) > 1;
          return <EdgePath key={e.id} edge={e} source={routed ? undefined : boxes.get(e.source)} target={routed ? undefined : boxes.get(e.target)} markers={ids} vertical={vertical} />;
        })}
      </g>
    </svg>
  );
}

/** One edge: the polyline ELK routed, or a curve between the ports while it has no route yet; a loop is dashed. */
const EdgePath = memo(function EdgePath({ edge, source, target, markers, vertical }: { edge: RoutedFlowEdge; source?: NodeBox; target?: NodeBox; markers: string; vertical: boolean }) {
  const points = edge.data?.points;
  let path: string;
  if (points && points.length > 1) path = roundedPath(points);
  else if (source && target) path = getBezierPath(vertical ? downward(source, target) : rightward(source, target))[0];
  else return null;
  const loop = !!edge.data?.loop;
  const highlighted = !!edge.data?.highlighted;
  const stroke = highlighted ? "#a5b4fc" : edge.data?.active ? "#6366f1" : loop ? "#a78bfa" : "#52525b";
  const marker = highlighted ? 2 : loop ? 1 : 0;
  return (
    <g className="react-flow__edge" data-id={edge.id} style={{ pointerEvents: "none" }}>
      <path
        className="react-flow__edge-path"
        d={path}
        fill="none"
        markerEnd={`url(#${markers}-m${marker})`}
        style={{ stroke, strokeWidth: highlighted ? 2.5 : 1.5, strokeDasharray: loop ? "5 4" : undefined }}
      />
    </g>
  );
});

/** A curve's ends between two ports: right side to left side, or (top to bottom) bottom to top. */
const rightward = (source: NodeBox, target: NodeBox) => ({
  sourceX: source.x + source.width + PORT_OUT,
  sourceY: source.y + source.height / 2,
  sourcePosition: Position.Right,
  targetX: target.x - PORT_OUT,
  targetY: target.y + target.height / 2,
  targetPosition: Position.Left,
});
const downward = (source: NodeBox, target: NodeBox) => ({
  sourceX: source.x + source.width / 2,
  sourceY: source.y + source.height + PORT_OUT,
  sourcePosition: Position.Bottom,
  targetX: target.x + target.width / 2,
  targetY: target.y - PORT_OUT,
  targetPosition: Position.Top,
});
