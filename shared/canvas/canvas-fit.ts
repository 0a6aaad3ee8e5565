/**
 * How a laid-out graph fits a canvas: one padding for React Flow's fits (view-follow.ts) and for the
 * layout's choice of shape for the instance canvas (elk-layout.ts), so the two cannot disagree.
 */

/** React Flow's fit padding: the graph's node bounds take 1 / (1 + padding) of the canvas. */
export const FIT_PADDING = 0.12;

/**
 * The instance canvas at its smallest usual size, a 1024 × 768 window (the side panel 360 px, the
 * toolbar and the timeline's 240 px taken): a run's graph is laid out to fit it whole at `minZoom`.
 * At 0.8 a card's smallest text (type, state: 11 px) is 8.8 px and its name (13 px) 10.4 px; fitted
 * whole in one row, approval-gate came out at 5 px text (1024) and 7 px (1440).
 */
export const RUN_CANVAS = { width: 664, height: 424, minZoom: 0.8 } as const;

/** The zoom React Flow's fit gives a graph whose node bounds are `bounds` on a canvas of `canvas`. */
export function fitZoom(bounds: { width: number; height: number }, canvas: { width: number; height: number }): number {
  const pad = 1 + FIT_PADDING;
  return Math.min(canvas.width / (bounds.width * pad), canvas.height / (bounds.height * pad));
}

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
