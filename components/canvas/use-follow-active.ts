"use client";

import { useReactFlow, useStoreApi } from "@xyflow/react";
import { useEffect, useMemo } from "react";
import type { Box } from "@/components/canvas/canvas-overflow";
import { panToShow } from "@/components/canvas/view-follow";
import type { NodeRunState } from "@/shared/canvas/node-state";

/** A node asking a person comes first; then the running one furthest along (rightmost). */
const RANK: Partial<Record<NodeRunState, number>> = { waiting: 2, approval: 2, running: 1 };

/** The node a live run's view should keep in sight, or null when none is active or laid out. */
export function activeNode(states: ReadonlyMap<string, NodeRunState> | undefined, boxes: ReadonlyMap<string, Box> | undefined): string | null {
  if (!states || !boxes) return null;
  let best: { id: string; rank: number; x: number } | null = null;
  for (const [id, state] of states) {
    const rank = RANK[state];
    const box = boxes.get(id);
    if (!rank || !box) continue;
    if (!best || rank > best.rank || (rank === best.rank && box.x > best.x)) best = { id, rank, x: box.x };
  }
  return best?.id ?? null;
}

/**
 * Pans a canvas whose graph is wider than it (fitted readable, from START) to the run's active node
 * each time another node becomes the active one, while the view follows on its own (`following()`: not
 * after a pan or zoom by hand, nor after the fit button showed the graph whole). Must be called inside
 * the flow's provider.
 */
export function useFollowActive({ states, boxes, following }: { states?: ReadonlyMap<string, NodeRunState>; boxes?: ReadonlyMap<string, Box>; following(): boolean }) {
  const { getViewport, setViewport } = useReactFlow();
  const store = useStoreApi();
  const target = useMemo(() => activeNode(states, boxes), [states, boxes]);
  useEffect(() => {
    const node = target ? boxes?.get(target) : undefined;
    if (!node) return;
    // After the frame in which a new node set or layout is fitted (use-auto-fit), not before it.
    let frame = requestAnimationFrame(() => {
      frame = requestAnimationFrame(() => {
        if (!following()) return;
        const { width, height } = store.getState();
        const view = getViewport();
        const to = panToShow(node, view, { width, height });
        if (to) void setViewport({ ...view, ...to }, { duration: 300 });
      });
    });
    return () => cancelAnimationFrame(frame);
    // Only a new active node (or its first layout) moves the view: not every new map of states.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [target, boxes]);
}
