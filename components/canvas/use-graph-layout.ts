"use client";

import { startTransition, useEffect, useRef, useState } from "react";
import { type GraphLayout, layoutTopology } from "@/components/canvas/elk-layout";
import { provisionalLayout } from "@/components/canvas/provisional-layout";
import { layoutKey, type Topology } from "@/components/canvas/topology";

/** How long the shape must stay the same before ELK's layout replaces the provisional one. */
const SETTLE_MS = 160;

export interface LaidOut {
  /** The topology the layout was computed for (may trail the one asked for by one layout). */
  readonly topology: Topology | null;
  readonly layout: GraphLayout | null;
  readonly key: string | null;
  readonly error: string | null;
}

/**
 * The layout of a topology, recomputed only when its shape changes (not on every keystroke that
 * edits a description). A change of shape shows at once on a provisional layout (previous positions,
 * new edges as curves); ELK's layout (computed in a worker, cached per shape) then replaces it as a
 * low-priority update that typing can interrupt. A result that arrives after a newer request is dropped.
 */
export function useGraphLayout(topology: Topology | null): LaidOut {
  const key = topology ? layoutKey(topology) : null;
  const [state, setState] = useState<LaidOut>({ topology: null, layout: null, key: null, error: null });
  const latest = useRef<string | null>(null);
  const cache = useRef(new Map<string, GraphLayout>());
  const shown = useRef(false);

  useEffect(() => {
    if (!topology || key === null) return;
    latest.current = key;
    setState((s) => (s.layout ? { topology, layout: provisionalLayout(s.layout, topology), key, error: null } : s));
    const apply = (layout: GraphLayout) => {
      if (latest.current !== key) return;
      if (!shown.current) {
        shown.current = true; // the first layout: nothing to keep on screen meanwhile
        setState({ topology, layout, key, error: null });
        return;
      }
      // Once typing pauses (a newer shape cancels this), as an interruptible update: moving every
      // node on each keystroke would cost more than the keystroke itself.
      setTimeout(() => {
        if (latest.current === key) startTransition(() => setState({ topology, layout, key, error: null }));
      }, SETTLE_MS);
    };
    const hit = cache.current.get(key);
    if (hit) {
      apply(hit);
      return;
    }
    layoutTopology(topology).then(
      (layout) => {
        if (cache.current.size > 32) cache.current.clear();
        cache.current.set(key, layout);
        apply(layout);
      },
      (e: unknown) => {
        if (latest.current === key) setState((s) => ({ ...s, error: e instanceof Error ? e.message : String(e) }));
      },
    );
    // `key` captures everything about `topology` the layout depends on.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  return state;
}
