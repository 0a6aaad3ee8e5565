"use client";

import { ViewportPortal } from "@xyflow/react";
import { useCallback } from "react";
import type { PulseAnimator } from "@/components/canvas/pulse-animator";

/**
 * A layer in flow coordinates, above edges, that the PulseAnimator draws into. A callback ref: the
 * portal's target appears only after React Flow has mounted its viewport.
 */
export function PulseLayer({ animator }: { animator: PulseAnimator }) {
  const attach = useCallback(
    (layer: HTMLDivElement | null) => {
      if (layer) animator.attach(layer);
      else animator.detach();
    },
    [animator],
  );
  return (
    <ViewportPortal>
      <div
        ref={attach}
        data-testid="pulse-layer"
        data-pulses-shown={animator.shown}
        className="pointer-events-none absolute left-0 top-0 h-px w-px overflow-visible"
        style={{ zIndex: 5 }}
      />
    </ViewportPortal>
  );
}
