"use client";

import { startTransition, useEffect, useMemo, useRef, useState } from "react";
import { type GraphLayout, layoutTopology } from "@/shared/canvas/elk-layout";
import { initialLayout } from "@/components/canvas/initial-layout";
import { provisionalLayout } from "@/components/canvas/provisional-layout";
import { layoutKey, type Topology } from "@/shared/canvas/topology";


/**
 * How long the topology must stay unchanged before ELK is asked for its layout, and before the
 * answer replaces what is shown. ELK takes a core for 0.2–1 s on a 200-node graph: run while typing,
 * it competes with the keystrokes (two cores: the page's main thread and everything else) for a
 * layout that is stale before it lands; applied while typing, it moves every node (a commit of every
 * node and edge) between two keystrokes. A slow frame (a GC, a large paint) must not read as a pause.
 */
const QUIET_MS = 500;

export interface LaidOut {
  /** The topology the layout is for: always the one asked for. */
  readonly topology: Topology | null;
  readonly layout: GraphLayout | null;
  readonly key: string | null;
  readonly error: string | null;
  /** ELK's layout (not a stand-in shown while it computes). */
  readonly final: boolean;
}

export interface Final {
  readonly key: string;
  readonly layout: GraphLayout;
}

/**
 * The layout of a topology. The same render that gets a new topology lays it out at once, on the
 * main thread and in well under a millisecond: ELK's last layout when the shape is the same (a
 * description edit), else that layout adjusted (new nodes beside a predecessor, new edges drawn as
 * curves), or a quick layered one when most nodes are new. ELK (in a worker, cached per shape) is
 * asked once the topology has not changed for QUIET_MS, and its answer replaces the stand-in as an
 * interruptible update once typing is still paused; an answer for a shape that is gone is kept in the
 * cache and not shown.
 */
export function useGraphLayout(topology: Topology | null, seed?: Final | null): LaidOut {
  // layoutKey joins every node and edge id: once per topology object, not per render.
  const key = useMemo(() => (topology ? layoutKey(topology) : null), [topology]);
  // A page rendered on the server may bring ELK's layout along: then ELK is not asked at all.
  const [final, setFinal] = useState<Final | null>(() => seed ?? null);
  const [error, setError] = useState<{ key: string; message: string } | null>(null);
  const [seeded] = useState(() => new Map<string, GraphLayout>(seed ? [[seed.key, seed.layout]] : []));
  const cache = useRef(seeded);
  const inflight = useRef(new Map<string, Promise<GraphLayout>>());
  const latest = useRef<{ key: string | null; topology: Topology | null }>({ key: null, topology: null });
  const lastEdit = useRef(0);

  // The stand-in depends on the shape and on ELK's last layout only: text-only edits reuse it.
  const shown = useMemo(() => {
    if (!topology || key === null) return null;
    if (final?.key === key) return { layout: final.layout, final: true };
    if (!final) return { layout: initialLayout(topology), final: false };
    const known = topology.nodes.reduce((n, node) => n + (final.layout.nodes.has(node.id) ? 1 : 0), 0);
    // Mostly new nodes (a paste, another spec): lay them out in layers rather than beside the old ones.
    return { layout: known * 2 < topology.nodes.length ? initialLayout(topology) : provisionalLayout(final.layout, topology), final: false };
    // `key` captures everything about `topology` the layout depends on.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, final]);

  useEffect(() => {
    latest.current = { key, topology };
    lastEdit.current = performance.now();
    if (!topology || key === null || final?.key === key) return;
    let live = true;
    const request = () => {
      let pending = inflight.current.get(key);
      const hit = cache.current.get(key);
      if (!pending) {
        pending = hit
          ? Promise.resolve(hit)
          : layoutTopology(topology).then((layout) => {
              if (cache.current.size > 32) cache.current.clear();
              cache.current.set(key, layout);
              return layout;
            });
        inflight.current.set(key, pending);
        void pending.finally(() => inflight.current.delete(key)).catch(() => undefined);
      }
      pending.then(
        (layout) => {
          // Shown only while this shape is still the one on screen, once typing has paused.
          const settle = () => {
            if (!live || latest.current.key !== key) return;
            const quiet = performance.now() - lastEdit.current;
            if (final && quiet < QUIET_MS) return void setTimeout(settle, QUIET_MS - quiet);
            // The first layout replaces the quick one at once; later ones yield to typing.
            if (!final) setFinal({ key, layout });
            else startTransition(() => setFinal({ key, layout }));
          };
          settle();
        },
        (e: unknown) => {
          if (live && latest.current.key === key) setError({ key, message: e instanceof Error ? e.message : String(e) });
        },
      );
    };
    // Before anything from ELK is on screen, ask at once (the page just opened); after, once typing pauses.
    const timer = setTimeout(request, final ? QUIET_MS : 0);
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // Every edit (a description too) restarts the wait: typing is still going on.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [topology, final]);

  return {
    topology: shown ? topology : null,
    layout: shown?.layout ?? null,
    key,
    error: error && error.key === key ? error.message : null,
    final: shown?.final ?? false,
  };
}
