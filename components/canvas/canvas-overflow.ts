import { boundsOf, type Box } from "@/shared/canvas/canvas-fit";

export { boundsOf, type Box };

/** Pixels a graph may pass the canvas's edge by and still count as in view (rounding, a card's shadow). */
const SLACK = 2;

/**
 * Whether part of the graph (its flow-coordinate `bounds`) lies outside the canvas at this view
 * (React Flow's transform: screen = flow * zoom + translation): then the canvas can be panned to it,
 * and the canvas says so (PanHint).
 */
export function overflows(bounds: Box, view: { x: number; y: number; zoom: number }, canvas: { width: number; height: number }): boolean {
  if (canvas.width <= 0 || canvas.height <= 0) return false;
  const left = bounds.x * view.zoom + view.x;
  const top = bounds.y * view.zoom + view.y;
  const right = left + bounds.width * view.zoom;
  const bottom = top + bounds.height * view.zoom;
  return left < -SLACK || top < -SLACK || right > canvas.width + SLACK || bottom > canvas.height + SLACK;
}
