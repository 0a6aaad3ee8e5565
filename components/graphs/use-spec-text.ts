"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import type { Topology } from "@/shared/canvas/topology";
import { fastTopologyScan } from "@/components/graphs/fast-topology-scan";
import { type YamlProblem, yamlToTopology } from "@/components/graphs/yaml-topology";
import { YamlTopologyWorker } from "@/components/graphs/yaml-topology-client";

/**
 * How long typing must pause before the full YAML parse confirms the fast scan. The parse of a
 * 200-node spec costs ~100 ms of a core; run between keystrokes it competes with the typing itself.
 */
const CONFIRM_MS = 400;

/**
 * The preview's view of the editor text. Each keystroke goes through the fast line scanner (a few ms
 * for 200 nodes); once typing pauses, the full YAML parse confirms it or reports the problem, and the
 * preview then falls back to the last topology that parsed fully.
 */
export function useSpecTopology(text: string): { topology: Topology | null; problem: YamlProblem | null; stale: boolean } {
  const lastValid = useRef<Topology | null>(null);
  const fast = useMemo(() => fastTopologyScan(text), [text]);
  const [confirmed, setConfirmed] = useState<{ text: string; problem: YamlProblem | null } | null>(null);
  const [worker] = useState(() => (typeof Worker === "undefined" ? null : new YamlTopologyWorker()));
  useEffect(() => () => worker?.dispose(), [worker]);

  // Without a fast result, parse fully now; with one, confirm when typing pauses.
  const immediate = useMemo(() => (fast ? null : yamlToTopology(text)), [fast, text]);
  useEffect(() => {
    if (!fast) return;
    let live = true;
    // Until one parse has confirmed a graph there is no last valid one to fall back on: confirm at once
    // (typing that starts right after the page opens would otherwise keep postponing it).
    const delay = lastValid.current ? CONFIRM_MS : 0;
    const timer = setTimeout(() => {
      // In the worker when there is one: the full parse of a large spec takes tens of milliseconds.
      const done = (full: ReturnType<typeof yamlToTopology>) => {
        // A graph that parsed fully is a valid fallback even if the text has moved on since.
        if (full.ok) lastValid.current = full.topology;
        if (!live) return;
        setConfirmed((c) => (c?.text === text && c.problem === null && full.ok ? c : { text, problem: full.ok ? null : full.problem }));
      };
      if (worker) void worker.parse(text).then(done);
      else done(yamlToTopology(text));
    }, delay);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [fast, text, worker]);

  if (immediate) {
    if (immediate.ok) {
      lastValid.current = immediate.topology;
      return { topology: immediate.topology, problem: null, stale: false };
    }
    return { topology: lastValid.current, problem: immediate.problem, stale: lastValid.current !== null };
  }
  // The fast scan read a graph: show it, unless the full parse of this very text found a problem.
  if (confirmed && confirmed.text === text && confirmed.problem) {
    return { topology: lastValid.current, problem: confirmed.problem, stale: lastValid.current !== null };
  }
  return { topology: fast, problem: null, stale: false };
}
