import type { TopologyIssue } from "./errors";
import { END, START } from "./names";
import type { TriggerMode } from "./node";
import { Topology } from "./topology";

export interface TopologyInput {
  names: readonly string[];
  duplicates: readonly string[];
  edges: readonly (readonly [string, string])[];
  triggerModes: ReadonlyMap<string, TriggerMode>;
}

export interface ValidationReport {
  issues: TopologyIssue[];
  warnings: string[];
  topology: Topology;
}

/** Structural soundness, checked before anything runs. Issues are collected, not thrown one by one. */
export function validateTopology(input: TopologyInput): ValidationReport {
  const issues: TopologyIssue[] = [];
  const known = new Set(input.names);
  for (const name of input.duplicates) {
    issues.push({ kind: "duplicate_node", node: name, message: `node "${name}" is registered twice` });
  }
  for (const [from, to] of input.edges) {
    for (const end of [from, to]) {
      if (!known.has(end)) issues.push({ kind: "unknown_node", node: end, message: `edge ${from} → ${to} names unknown node "${end}"` });
    }
    if (to === START) issues.push({ kind: "invalid_edge", node: from, message: `edge ${from} → ${START}: nothing may deliver to the entry node` });
    if (from === END) issues.push({ kind: "invalid_edge", node: to, message: `edge ${END} → ${to}: the exit node has no downstream` });
  }
  const topology = new Topology(input.names, input.edges.filter(([f, t]) => known.has(f) && known.has(t)));
  issues.push(...reachabilityIssues(topology));
  const warnings = [...input.triggerModes]
    .filter(([, mode]) => mode === "ON_RECEIVE")
    .map(([name]) => `node "${name}" uses ON_RECEIVE, which is deprecated and experimental; prefer ON_ALL_PREDS`);
  return { issues, warnings, topology };
}

function reachabilityIssues(topology: Topology): TopologyIssue[] {
  const issues: TopologyIssue[] = [];
  const start = topology.index.get(START)!;
  const end = topology.index.get(END)!;
  const fromStart = topology.closure(start, "forward");
  const toEnd = topology.closure(end, "backward");
  for (const name of topology.names) {
    const i = topology.index.get(name)!;
    if (i === start || i === end) continue;
    if (!fromStart.has(i)) {
      issues.push({ kind: "unreachable_node", node: name, message: `node "${name}" is unreachable from ${START}` });
    } else if (!toEnd.has(i)) {
      issues.push({ kind: "end_unreachable", node: name, message: `${END} is not reachable from node "${name}"` });
    }
  }
  if (!fromStart.has(end)) issues.push({ kind: "end_unreachable", message: `${END} is not reachable from ${START}` });
  return issues;
}
