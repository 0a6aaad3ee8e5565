"use client";

import { useStore } from "@xyflow/react";
import { useCallback } from "react";
import { type Box, overflows } from "@/components/canvas/canvas-overflow";

/**
 * "Drag to pan · scroll to zoom", beside the zoom controls, while part of the graph lies outside the
 * canvas (a wide graph is shown readable from START, the rest off to the right) and the user has not
 * moved the view yet. Nothing else says the canvas pans. Must be rendered inside the flow.
 */
export function PanHint({ bounds, dismissed }: { bounds: Box | null; dismissed: boolean }) {
  const selectOverflow = useCallback(
    (s: { transform: [number, number, number]; width: number; height: number }) =>
      bounds !== null && overflows(bounds, { x: s.transform[0], y: s.transform[1], zoom: s.transform[2] }, { width: s.width, height: s.height }),
    [bounds],
  );
  const overflowing = useStore(selectOverflow);
  if (!overflowing || dismissed) return null;
  return (
    <div
      data-testid="pan-hint"
      className="pointer-events-none absolute bottom-[15px] right-12 z-[5] flex items-center gap-1.5 rounded-md border border-white/10 bg-zinc-950/85 px-2 py-1 text-[11px] text-zinc-400 shadow-sm"
    >
      <svg width="12" height="12" viewBox="0 0 16 16" aria-hidden="true" className="text-zinc-500">
        <path d="M8 1 5.5 3.5h5L8 1Zm0 14 2.5-2.5h-5L8 15ZM1 8l2.5 2.5v-5L1 8Zm14 0-2.5-2.5v5L15 8ZM7.25 3.5h1.5v9h-1.5zM3.5 7.25h9v1.5h-9z" fill="currentColor" />
      </svg>
      Drag to pan · scroll to zoom
    </div>
  );
}
