"use client";

import { ViewportPortal } from "@xyflow/react";
import { useEffect, useRef } from "react";
import type { PulseAnimator } from "@/components/canvas/pulse-animator";

/** An SVG in flow coordinates, above edges, that the PulseAnimator draws into. */
export function PulseLayer({ animator }: { animator: PulseAnimator }) {
  const group = useRef<SVGGElement>(null);
  useEffect(() => {
    if (!group.current) return;
    animator.attach(group.current);
    return () => animator.detach();
  }, [animator]);
  return (
    <ViewportPortal>
      <svg
        data-testid="pulse-layer"
        className="pointer-events-none absolute left-0 top-0 overflow-visible"
        width="1"
        height="1"
        style={{ zIndex: 5 }}
      >
        <g ref={group} />
      </svg>
    </ViewportPortal>
  );
}
