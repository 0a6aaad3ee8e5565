"use client";

import { useReactFlow } from "@xyflow/react";
import { type RefObject, useCallback, useEffect, useRef } from "react";
import { FIT, followAfter, isLayoutChange, type LayoutMark, type ViewEvent, type ViewFollow } from "@/components/canvas/view-follow";

export interface AutoFitOptions {
  /** The least zoom a readable fit may pick; a wider graph then shows from its left edge (START). */
  fitMinZoom?: number;
  /** The ids of the nodes shown, joined: a new set is fitted (unless the view was moved by hand). */
  nodeSetKey: string;
  /** Whether the shown layout is ELK's: its first arrival for a node set is fitted once more. */
  layoutFinal: boolean;
  /** Bumped by the page when the layout around the canvas really changes (see TopologyCanvasProps). */
  layoutChanges?: { readonly current: number };
}

export interface AutoFit {
  /** The canvas's box, observed for size changes. */
  box: RefObject<HTMLDivElement | null>;
  /** React Flow's onMove: an event means a pan or zoom by hand (drag, wheel, pinch); our fits have none. */
  onMove(event: unknown): void;
  /** The zoom buttons: a zoom by hand. */
  onZoomButton(): void;
  /** The fit button: the graph whole, and whole again at later resizes. */
  fitWhole(): void;
  /** Whether the view still follows on its own the readable fit (it was not moved by hand, nor fitted whole). */
  following(): boolean;
}

/**
 * Fits the canvas's view when it opens, when its node set changes and when its layout really changes
 * size, following the rule in view-follow.ts. Must be called inside the flow's provider.
 */
/** The START node's id on every canvas (the topology's name for it). */
const START_ID = "__start__";

export function useAutoFit({ fitMinZoom, nodeSetKey, layoutFinal, layoutChanges }: AutoFitOptions): AutoFit {
  const { fitView, getViewport, setViewport, getNodesBounds, getNodes } = useReactFlow();
  const follow = useRef<ViewFollow>("readable");
  const note = useCallback((event: ViewEvent) => void (follow.current = followAfter(follow.current, event)), []);

  // The canvas's box, observed for size changes (below); the readable fit reads its height.
  const box = useRef<HTMLDivElement>(null);
  const fitReadable = useCallback(
    () =>
      void fitView({ ...FIT, minZoom: fitMinZoom, duration: 0 }).then(() => {
        if (fitMinZoom === undefined) return;
        // Too large for the canvas at its least readable zoom: shown from its left edge (START) and,
        // when too tall as well, from its top, not centred with both ends cut.
        const vp = getViewport();
        const nodes = getNodes();
        const bounds = getNodesBounds(nodes);
        const left = bounds.x * vp.zoom + vp.x;
        const top = bounds.y * vp.zoom + vp.y;
        if (left >= 0 && top >= 0) return;
        let y = top < 0 ? vp.y - top + 24 : vp.y;
        // From its top, START of a graph much taller than the canvas (a wide fan-out) was out of view
        // below an empty corner: then START is centred on the canvas's height instead.
        const start = nodes.find((n) => n.id === START_ID);
        const height = box.current?.clientHeight ?? 0;
        if (top < 0 && start && height > 0) {
          const s = getNodesBounds([start]);
          const startBottom = (s.y + s.height) * vp.zoom + y;
          if (startBottom > height) y = Math.max(height - 24 - (bounds.y + bounds.height) * vp.zoom, height / 2 - (s.y + s.height / 2) * vp.zoom);
        }
        void setViewport({ ...vp, x: left < 0 ? vp.x - left + 24 : vp.x, y });
      }),
    [fitView, fitMinZoom, getViewport, getNodesBounds, getNodes, setViewport],
  );
  const fitAsFollowed = useCallback(() => {
    if (follow.current === "readable") fitReadable();
    else if (follow.current === "whole") void fitView({ ...FIT, duration: 0 });
  }, [fitReadable, fitView]);

  const onMove = useCallback((event: unknown) => event && note("moved-by-hand"), [note]);
  const onZoomButton = useCallback(() => note("moved-by-hand"), [note]);
  const fitWhole = useCallback(() => {
    note("fit-button");
    fitAsFollowed();
  }, [note, fitAsFollowed]);

  // Fit when the set of nodes changes (not when an edge moves: the view would jump while typing), and
  // once more when ELK's layout for a new set of nodes replaces the stand-in it was first fitted to.
  const fittedFinal = useRef<string | null>(null);
  const fitFinal = layoutFinal && fittedFinal.current !== nodeSetKey;
  useEffect(() => {
    if (!nodeSetKey) return;
    if (layoutFinal) fittedFinal.current = nodeSetKey;
    note("new-node-set");
    const id = requestAnimationFrame(fitAsFollowed);
    return () => cancelAnimationFrame(id);
    // `layoutFinal` is read only when the node set changes or ELK lands for a new one.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [nodeSetKey, fitFinal, fitAsFollowed, note]);

  // Fit again when the canvas's size changes because the layout really changed (isLayoutChange).
  const changesRef = useRef(layoutChanges);
  changesRef.current = layoutChanges;
  useEffect(() => {
    const el = box.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const mark = (): LayoutMark => ({ window: `${window.innerWidth}x${window.innerHeight}`, announced: changesRef.current?.current ?? 0 });
    let size: string | null = null;
    let seen = mark();
    let frame = 0;
    const observer = new ResizeObserver(([entry]) => {
      const next = `${Math.round(entry.contentRect.width)}x${Math.round(entry.contentRect.height)}`;
      // The first size is the one the canvas opened at. The node-set fit above may have run before React
      // Flow measured it (on a busy machine), against the server-rendered frame's size hint: fitted again
      // at the measured size, a view still followed comes out the same as on a quiet one.
      const first = size === null;
      const resized = !first && next !== size;
      size = next;
      const now = mark();
      const real = isLayoutChange(seen, now);
      seen = now;
      if (!first && (!resized || !real)) return;
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(fitAsFollowed);
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      cancelAnimationFrame(frame);
    };
  }, [fitAsFollowed]);

  const following = useCallback(() => follow.current === "readable", []);
  return { box, onMove, onZoomButton, fitWhole, following };
}
