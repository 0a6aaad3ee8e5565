"use client";

import { useMemo, useRef } from "react";
import type { Topology } from "@/components/canvas/topology";
import { type YamlProblem, yamlToTopology } from "@/components/graphs/yaml-topology";

/**
 * The preview's view of the editor text: the topology when the text reads as a graph, otherwise the
 * last topology that did, with the problem that stops the current text.
 */
export function useSpecTopology(text: string): { topology: Topology | null; problem: YamlProblem | null; stale: boolean } {
  const lastValid = useRef<Topology | null>(null);
  return useMemo(() => {
    const result = yamlToTopology(text);
    if (result.ok) {
      lastValid.current = result.topology;
      return { topology: result.topology, problem: null, stale: false };
    }
    return { topology: lastValid.current, problem: result.problem, stale: lastValid.current !== null };
  }, [text]);
}
