"use client";

import { ViewportPortal } from "@xyflow/react";
import { useCallback } from "react";
import type { PulseAnimator } from "@/components/canvas/pulse-animator";

/**
 * An SVG in flow coordinates, above edges, that the PulseAnimator draws into. A callback ref: the
 * portal's target appears only after React Flow has mounted its viewport.
 */
export function PulseLayer({ animator }: { animator: PulseAnimator }) {
  const attach = useCallback(
    (group: SVGGElement | null) => {
      if (group) animator.attach(group);
      else animator.detach();
    },
    [animator],
  );
  return (
    <ViewportPortal>
      <svg
        data-testid="pulse-layer"
        data-pulses-shown={animator.shown}
        className="pointer-events-none absolute left-0 top-0 overflow-visible"
        width="1"
        height="1"
        style={{ zIndex: 5 }}
      >
        <g ref={attach} />
      </svg>
    </ViewportPortal>
  );
}
