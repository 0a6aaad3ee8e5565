import type { TopologyIssue } from "./errors";
import { END, START } from "./names";
import type { TriggerMode } from "./node";
import { Topology } from "./topology";

export interface TopologyInput {
  names: readonly string[];
  duplicates: readonly string[];
  edges: readonly (readonly [string, string])[];
  /** By position in `names`. */
  triggerModes: readonly TriggerMode[];
}

export interface ValidationReport {
  issues: TopologyIssue[];
  warnings: string[];
  topology: Topology;
}

/**
 * Structural soundness, checked before anything runs. Issues are collected, not thrown one by one.
 * Runs once per compile, mostly in the interpreter: index loops, no pair destructuring (see Topology).
 */
export function validateTopology(input: TopologyInput): ValidationReport {
  const issues: TopologyIssue[] = [];
  for (const name of input.duplicates) {
    issues.push({ kind: "duplicate_node", node: name, message: `node "${name}" is registered twice` });
  }
  // The topology leaves out edges naming unknown nodes; they are reported here.
  const topology = new Topology(input.names, input.edges);
  for (let k = 0; k < input.edges.length; k++) edgeIssues(input.edges[k][0], input.edges[k][1], topology.index, issues);
  reachabilityIssues(topology, issues);
  const warnings: string[] = [];
  for (let i = 0; i < input.names.length; i++) {
    if (input.triggerModes[i] !== "ON_RECEIVE") continue;
    warnings.push(`node "${input.names[i]}" uses ON_RECEIVE, which is deprecated and experimental; prefer ON_ALL_PREDS`);
  }
  return { issues, warnings, topology };
}

function edgeIssues(from: string, to: string, known: ReadonlyMap<string, number>, issues: TopologyIssue[]): void {
  if (!known.has(from)) issues.push({ kind: "unknown_node", node: from, message: `edge ${from} → ${to} names unknown node "${from}"` });
  if (!known.has(to)) issues.push({ kind: "unknown_node", node: to, message: `edge ${from} → ${to} names unknown node "${to}"` });
  if (to === START) issues.push({ kind: "invalid_edge", node: from, message: `edge ${from} → ${START}: nothing may deliver to the entry node` });
  if (from === END) issues.push({ kind: "invalid_edge", node: to, message: `edge ${END} → ${to}: the exit node has no downstream` });
}

function reachabilityIssues(topology: Topology, issues: TopologyIssue[]): void {
  const start = topology.index.get(START)!;
  const end = topology.index.get(END)!;
  const fromStart = topology.closure(start, "forward");
  const toEnd = topology.closure(end, "backward");
  const names = topology.names;
  for (let i = 0; i < names.length; i++) {
    if (i === start || i === end) continue;
    if (fromStart[i] === 0) {
      issues.push({ kind: "unreachable_node", node: names[i], message: `node "${names[i]}" is unreachable from ${START}` });
    } else if (toEnd[i] === 0) {
      issues.push({ kind: "end_unreachable", node: names[i], message: `${END} is not reachable from node "${names[i]}"` });
    }
  }
  if (fromStart[end] === 0) issues.push({ kind: "end_unreachable", message: `${END} is not reachable from ${START}` });
}
