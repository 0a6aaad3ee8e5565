"use client";

import { startTransition, useEffect, useRef, useState } from "react";
import { type GraphLayout, layoutTopology, warmLayoutEngine } from "@/components/canvas/elk-layout";

// Loading ELK into its worker takes the best part of a second: start as soon as a page that draws
// graphs loads, so it overlaps with fetching what to draw.
if (typeof Worker !== "undefined") warmLayoutEngine();
import { initialLayout } from "@/components/canvas/initial-layout";
import { provisionalLayout } from "@/components/canvas/provisional-layout";
import { layoutKey, type Topology } from "@/components/canvas/topology";

/**
 * How long the text must stay untouched before ELK's layout replaces the provisional one: a relayout
 * moves most nodes (a commit of every node and edge), which must not land between two keystrokes.
 */
const SETTLE_MS = 450;
/** How long a new shape must last before ELK is asked to lay it out. */
const LAYOUT_AFTER_MS = 150;

export interface LaidOut {
  /** The topology the layout was computed for (may trail the one asked for by one layout). */
  readonly topology: Topology | null;
  readonly layout: GraphLayout | null;
  readonly key: string | null;
  readonly error: string | null;
  /** ELK's layout (not a stand-in shown while it computes). */
  readonly final: boolean;
}

/**
 * The layout of a topology, recomputed only when its shape changes (not on every keystroke that
 * edits a description). A change of shape shows at once on a provisional layout (previous positions,
 * new edges as curves); ELK's layout (computed in a worker, cached per shape) then replaces it as a
 * low-priority update that typing can interrupt. A result that arrives after a newer request is dropped.
 */
export function useGraphLayout(topology: Topology | null): LaidOut {
  const key = topology ? layoutKey(topology) : null;
  const [state, setState] = useState<LaidOut>({ topology: null, layout: null, key: null, error: null, final: false });
  const latest = useRef<string | null>(null);
  const cache = useRef(new Map<string, GraphLayout>());
  const shown = useRef(false);
  // When the topology last changed (any edit, a description too): typing is still going on.
  const lastEdit = useRef(0);
  useEffect(() => {
    lastEdit.current = performance.now();
  }, [topology]);

  useEffect(() => {
    if (!topology || key === null) return;
    latest.current = key;
    // Something on screen at once: the previous layout adjusted, or (the first time) a quick layered one.
    setState((s) => ({ topology, layout: s.layout ? provisionalLayout(s.layout, topology) : initialLayout(topology), key, error: null, final: false }));
    const apply = (layout: GraphLayout) => {
      if (latest.current !== key) return;
      if (!shown.current) {
        shown.current = true; // the first ELK layout replaces the quick one at once
        setState({ topology, layout, key, error: null, final: true });
        return;
      }
      // Once typing pauses (a newer shape cancels this), as an interruptible update: moving every
      // node on each keystroke would cost more than the keystroke itself.
      const settle = () => {
        if (latest.current !== key) return;
        const quiet = performance.now() - lastEdit.current;
        if (quiet < SETTLE_MS) setTimeout(settle, SETTLE_MS - quiet);
        else startTransition(() => setState({ topology, layout, key, error: null, final: true }));
      };
      setTimeout(settle, SETTLE_MS);
    };
    const hit = cache.current.get(key);
    if (hit) {
      apply(hit);
      return;
    }
    const compute = () =>
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
    if (!shown.current) {
      void compute();
      return;
    }
    // While the shape keeps changing, ELK would lay out shapes that are gone before it finishes (and
    // take a core from the typing): ask once this shape has lasted a moment.
    const timer = setTimeout(compute, LAYOUT_AFTER_MS);
    return () => clearTimeout(timer);
    // `key` captures everything about `topology` the layout depends on.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  return state;
}
