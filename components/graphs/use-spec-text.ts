"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import type { Topology } from "@/components/canvas/topology";
import { fastTopologyScan } from "@/components/graphs/fast-topology-scan";
import { type YamlProblem, yamlToTopology } from "@/components/graphs/yaml-topology";

/** How long typing must pause before the full YAML parse confirms the fast scan. */
const CONFIRM_MS = 120;

/**
 * The preview's view of the editor text. Each keystroke goes through the fast line scanner (a few ms
 * for 200 nodes); once typing pauses, the full YAML parse confirms it or reports the problem, and the
 * preview then falls back to the last topology that parsed fully.
 */
export function useSpecTopology(text: string): { topology: Topology | null; problem: YamlProblem | null; stale: boolean } {
  const lastValid = useRef<Topology | null>(null);
  const fast = useMemo(() => fastTopologyScan(text), [text]);
  const [confirmed, setConfirmed] = useState<{ text: string; problem: YamlProblem | null } | null>(null);

  // Without a fast result, parse fully now; with one, confirm when typing pauses.
  const immediate = useMemo(() => (fast ? null : yamlToTopology(text)), [fast, text]);
  useEffect(() => {
    if (!fast) return;
    const timer = setTimeout(() => {
      const full = yamlToTopology(text);
      if (full.ok) lastValid.current = full.topology;
      setConfirmed({ text, problem: full.ok ? null : full.problem });
    }, CONFIRM_MS);
    return () => clearTimeout(timer);
  }, [fast, text]);

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
