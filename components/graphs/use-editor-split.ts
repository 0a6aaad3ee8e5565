"use client";

import { type KeyboardEvent, type PointerEvent, type RefObject, useCallback, useEffect, useRef, useState } from "react";

/** The YAML's share of the editor page's width when the user has not moved the split. */
export const DEFAULT_SPLIT = 0.44;
/** Neither side is made narrower than this (px): the YAML's lines, the preview's legend and controls. */
const MIN_SIDE = 320;
/** One arrow key press moves the split by this share of the width. */
const KEY_STEP = 0.02;
const STORAGE_KEY = "modex.graphs.split";

export interface EditorSplit {
  /** The YAML's share of the row's width (0–1). */
  share: number;
  /** The row holding both sides, measured to turn a drag into a share. */
  row: RefObject<HTMLDivElement | null>;
  /** Bumped on every change of the split: the preview fits its graph again (TopologyCanvasProps.layoutChanges). */
  layoutChanges: RefObject<number>;
  handle: {
    onPointerDown(e: PointerEvent<HTMLElement>): void;
    onPointerMove(e: PointerEvent<HTMLElement>): void;
    onPointerUp(): void;
    onKeyDown(e: KeyboardEvent<HTMLElement>): void;
    onDoubleClick(): void;
  };
}

/** A share kept within the row's width so that neither side is narrower than MIN_SIDE. */
function clampShare(share: number, width: number): number {
  if (width <= 2 * MIN_SIDE) return DEFAULT_SPLIT;
  return Math.min(1 - MIN_SIDE / width, Math.max(MIN_SIDE / width, share));
}

function storedShare(): number | null {
  try {
    const n = Number(localStorage.getItem(STORAGE_KEY));
    return n > 0 && n < 1 ? n : null;
  } catch {
    return null;
  }
}

/**
 * The split between the YAML and the preview, which the user drags (or moves with the arrow keys;
 * a double click puts it back). It is kept in the browser for every graph: a user who wants a wider
 * preview for large graphs wants it for the next one too. The page renders at the default share
 * (the server cannot know the stored one) and takes the stored one once mounted.
 */
export function useEditorSplit(): EditorSplit {
  const [share, setShare] = useState(DEFAULT_SPLIT);
  const row = useRef<HTMLDivElement>(null);
  const layoutChanges = useRef(0);
  const drag = useRef<{ left: number; width: number } | null>(null);

  const apply = useCallback((next: number, keep: boolean) => {
    const width = row.current?.clientWidth ?? 0;
    const clamped = clampShare(next, width);
    layoutChanges.current++;
    setShare(clamped);
    if (keep) {
      try {
        localStorage.setItem(STORAGE_KEY, String(clamped));
      } catch {
        // Storage full or blocked: the split still moves, it is just not remembered.
      }
    }
  }, []);

  useEffect(() => {
    const stored = storedShare();
    if (stored !== null && stored !== DEFAULT_SPLIT) apply(stored, false);
  }, [apply]);

  const handle = {
    onPointerDown(e: PointerEvent<HTMLElement>) {
      const box = row.current?.getBoundingClientRect();
      if (!box) return;
      drag.current = { left: box.left, width: box.width };
      e.currentTarget.setPointerCapture(e.pointerId);
      e.preventDefault();
    },
    onPointerMove(e: PointerEvent<HTMLElement>) {
      const d = drag.current;
      if (d) apply((e.clientX - d.left) / d.width, false);
    },
    onPointerUp() {
      if (drag.current) apply(share, true);
      drag.current = null;
    },
    onKeyDown(e: KeyboardEvent<HTMLElement>) {
      const step = e.key === "ArrowLeft" ? -KEY_STEP : e.key === "ArrowRight" ? KEY_STEP : 0;
      if (step === 0) return;
      e.preventDefault();
      apply(share + step, true);
    },
    onDoubleClick() {
      apply(DEFAULT_SPLIT, true);
    },
  };
  return { share, row, layoutChanges, handle };
}
