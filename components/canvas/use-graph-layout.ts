"use client";

import { useEffect, useRef, useState } from "react";
import { type GraphLayout, layoutTopology } from "@/components/canvas/elk-layout";
import { provisionalLayout } from "@/components/canvas/provisional-layout";
import { layoutKey, type Topology } from "@/components/canvas/topology";

/**
 * The layout of a topology, recomputed only when its shape changes (not on every keystroke that
 * edits a description). While a new layout is computed the previous one stays on screen; a result
 * that arrives after a newer request is dropped. Until the new layout arrives, a provisional one
 * (previous positions, new edges as curves) shows the change immediately.
 */
export interface LaidOut {
  /** The topology the layout was computed for (may trail the one asked for by one layout). */
  readonly topology: Topology | null;
  readonly layout: GraphLayout | null;
  readonly key: string | null;
  readonly error: string | null;
}

export function useGraphLayout(topology: Topology | null): LaidOut {
  const key = topology ? layoutKey(topology) : null;
  const [state, setState] = useState<LaidOut>({ topology: null, layout: null, key: null, error: null });
  const latest = useRef<string | null>(null);
  const cache = useRef(new Map<string, GraphLayout>());

  useEffect(() => {
    if (!topology || key === null) return;
    latest.current = key;
    const hit = cache.current.get(key);
    if (hit) {
      setState({ topology, layout: hit, key, error: null });
      return;
    }
    // Show the change at once on a stand-in layout; ELK's result replaces it.
    setState((s) => (s.layout ? { topology, layout: provisionalLayout(s.layout, topology), key, error: null } : s));
    layoutTopology(topology).then(
      (layout) => {
        if (cache.current.size > 32) cache.current.clear();
        cache.current.set(key, layout);
        if (latest.current === key) setState({ topology, layout, key, error: null });
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
