"use client";

import type { EditorSplit } from "@/components/graphs/use-editor-split";

/**
 * The bar between the YAML and the preview: drag it, or focus it and use the arrow keys, to give
 * either side more room; a double click puts it back. A few pixels wide, with a wider invisible grip.
 */
export function SplitHandle({ split }: { split: EditorSplit }) {
  return (
    <div
      role="separator"
      aria-orientation="vertical"
      aria-label="Resize the YAML and the preview"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(split.share * 100)}
      tabIndex={0}
      title="Drag to resize · double-click to reset"
      data-testid="editor-split"
      {...split.handle}
      className="group relative z-10 w-px shrink-0 cursor-col-resize touch-none bg-white/10 outline-none focus-visible:bg-indigo-400"
    >
      <span aria-hidden="true" className="absolute inset-y-0 -left-1 -right-1 group-hover:bg-indigo-400/30 group-active:bg-indigo-400/50" />
    </div>
  );
}
