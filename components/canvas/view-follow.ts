import { FIT_PADDING } from "@/shared/canvas/canvas-fit";

/**
 * How a canvas's view follows changes the user did not make: one rule for the spec preview and the
 * instance canvas (use-auto-fit.ts applies it).
 *
 * - `readable`: fitted as when it opened, down to the canvas's least readable zoom, from START;
 * - `whole`: the fit button was pressed last, so the graph is shown whole;
 * - `kept`: the user panned or zoomed by hand; no automatic fit moves the view again until they press
 *   the fit button (not a resize, not a new node set: the view they chose stays theirs).
 */
export type ViewFollow = "readable" | "whole" | "kept";

export type ViewEvent = "new-node-set" | "fit-button" | "moved-by-hand";

export function followAfter(current: ViewFollow, event: ViewEvent): ViewFollow {
  switch (event) {
    case "moved-by-hand":
      return "kept";
    case "fit-button":
      return "whole";
    case "new-node-set":
      return current === "kept" ? "kept" : "readable";
  }
}

/**
 * The one set of fit settings: the fit button's, every automatic fit's, and the server-rendered
 * frame's. A readable fit adds only its least zoom (the canvas's `fitMinZoom`).
 */
export const FIT = { padding: FIT_PADDING, maxZoom: 1.1 } as const;

/**
 * What the canvas saw around it at its last size change: the window's size and the count of layout
 * changes its page announced (a panel beside it resized by the user).
 */
export interface LayoutMark {
  window: string;
  announced: number;
}

/**
 * Whether a change of the canvas's size is a real change of layout, worth fitting again for: the window
 * was resized, or the page announced one. Anything else (a banner above the canvas came or went, a
 * message grew a line) leaves the view where it is, so it does not jump while the user types.
 */
export function isLayoutChange(before: LayoutMark, now: LayoutMark): boolean {
  return before.window !== now.window || before.announced !== now.announced;
}

/** Room kept between a followed node and the canvas's edge, in screen pixels. */
const FOLLOW_MARGIN = 48;

/**
 * Where to pan so that `node` (flow coordinates) is in view, keeping the zoom; null when it is in view
 * already. A live run wider than its canvas (shown readable, from START) runs off the right edge: the
 * view follows its running node there, so the run's progress and its deliveries stay in sight. The node
 * is brought in as far as the margin from the edge it was past, not centred, so the graph's left part
 * stays shown as long as it can.
 */
export function panToShow(
  node: { x: number; y: number; width: number; height: number },
  view: { x: number; y: number; zoom: number },
  canvas: { width: number; height: number },
): { x: number; y: number } | null {
  if (canvas.width <= 0 || canvas.height <= 0) return null;
  const axis = (start: number, size: number, shift: number, room: number): number => {
    const a = start * view.zoom + shift;
    const b = a + size * view.zoom;
    const margin = Math.min(FOLLOW_MARGIN, Math.max(0, (room - size * view.zoom) / 2));
    if (a >= 0 && b <= room) return shift;
    if (b > room - margin && a > margin) return shift - (b - (room - margin));
    return shift + (margin - a);
  };
  const x = axis(node.x, node.width, view.x, canvas.width);
  const y = axis(node.y, node.height, view.y, canvas.height);
  return x === view.x && y === view.y ? null : { x, y };
}
