"use client";

import { BaseEdge, type EdgeProps, getBezierPath } from "@xyflow/react";
import type { RoutedFlowEdge } from "@/components/canvas/flow-types";
import { roundedPath, runsBackward } from "@/components/canvas/polyline";

/** Draws the polyline ELK routed; a loop (right to left) is dashed so cycles read at a glance. */
export function RoutedEdge({ id, data, sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, markerEnd }: EdgeProps<RoutedFlowEdge>) {
  const points = data?.points;
  const path = points && points.length > 1 ? roundedPath(points) : getBezierPath({ sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition })[0];
  const loop = points ? runsBackward(points) : false;
  const stroke = data?.highlighted ? "#a5b4fc" : data?.active ? "#6366f1" : loop ? "#a78bfa" : "#52525b";
  return (
    <BaseEdge
      id={id}
      path={path}
      markerEnd={markerEnd}
      style={{ stroke, strokeWidth: data?.highlighted ? 2.5 : 1.5, strokeDasharray: loop ? "5 4" : undefined }}
    />
  );
}
