/** A rectangle in flow coordinates (a node's box, or the bounds of several). */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The smallest box holding every box; null for none. */
export function boundsOf(boxes: Iterable<Box>): Box | null {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const b of boxes) {
    x0 = Math.min(x0, b.x);
    y0 = Math.min(y0, b.y);
    x1 = Math.max(x1, b.x + b.width);
    y1 = Math.max(y1, b.y + b.height);
  }
  return x0 === Infinity ? null : { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

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
