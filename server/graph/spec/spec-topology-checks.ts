import type { TopologyIssue } from "../errors";
import { END, START } from "../names";
import type { NodeRoute } from "./node-registry";
import { specIssue, type SpecIssue, type SpecPath } from "./spec-errors";

/** One declared node as the checks see it: where it sits in the spec and whom it says it delivers to. */
export interface PlacedNode {
  readonly name: string;
  readonly path: SpecPath;
  readonly routes: readonly NodeRoute[];
  readonly routesBySelf: boolean;
}

export interface PlacedEdges {
  readonly path: SpecPath;
  readonly edges: readonly { from: string; to: string }[];
}

/**
 * Edge ends must name declared nodes (or START/END, the right way round); every target a config
 * names must be an edge of its node; a node that cannot choose among several edges must name one.
 * These run before the TopologyValidator so each issue points at the exact spec location.
 */
export function checkSpecEdges(nodes: readonly PlacedNode[], placed: PlacedEdges): SpecIssue[] {
  const issues: SpecIssue[] = [];
  const known = new Set([START, END, ...nodes.map((n) => n.name)]);
  placed.edges.forEach((edge, j) => {
    const at = [...placed.path, j];
    if (!known.has(edge.from)) issues.push(specIssue("reference", [...at, "from"], `unknown node "${edge.from}"`));
    if (!known.has(edge.to)) issues.push(specIssue("reference", [...at, "to"], `unknown node "${edge.to}"`));
    if (edge.to === START) issues.push(specIssue("topology", [...at, "to"], `nothing may deliver to the entry node ${START}`));
    if (edge.from === END) issues.push(specIssue("topology", [...at, "from"], `the exit node ${END} has no downstream`));
  });
  // Targets by source, built once: filtering every edge for every node was quadratic (a 20,000-node
  // spec spent seconds here). Only edges that are otherwise sound count; the broken ones are reported above.
  const targetsOf = new Map<string, Set<string>>();
  for (const e of placed.edges) {
    if (!known.has(e.to) || e.to === START) continue;
    const set = targetsOf.get(e.from);
    if (set) set.add(e.to);
    else targetsOf.set(e.from, new Set([e.to]));
  }
  for (const node of nodes) {
    const out = [...(targetsOf.get(node.name) ?? [])];
    // With no declared edge, a node's one edge is the implicit one to END.
    const reachable = out.length === 0 ? [END] : out;
    for (const route of node.routes) {
      if (!reachable.includes(route.target)) {
        const why = known.has(route.target) ? `add { from: ${node.name}, to: ${route.target} } to edges` : `no node is named "${route.target}"`;
        issues.push(specIssue("reference", [...node.path, "config", ...route.at], `"${node.name}" has no edge to "${route.target}": ${why}`));
      }
    }
    if (!node.routesBySelf && out.length > 1 && node.routes.length === 0) {
      issues.push(specIssue("topology", node.path, `"${node.name}" has ${out.length} outgoing edges (${out.join(", ")}) but delivers to one: set config.next, or route with route_if or fan_out`));
    }
  }
  return issues;
}

/** TopologyValidator findings, placed at the offending node (or at `edges` when none is named). */
export function mapTopologyIssues(issues: readonly TopologyIssue[], nodes: readonly PlacedNode[], placed: PlacedEdges): SpecIssue[] {
  const pathOf = new Map(nodes.map((n) => [n.name, n.path]));
  // Unknown edge ends and edges into START or out of END were already placed by checkSpecEdges.
  const fresh = issues.filter((i) => i.kind !== "unknown_node" && i.kind !== "invalid_edge");
  return fresh.map((issue) => {
    const nodePath = issue.node !== undefined ? pathOf.get(issue.node) : undefined;
    if (nodePath) return specIssue("topology", nodePath, issue.message);
    const j = issue.node === undefined ? -1 : placed.edges.findIndex((e) => e.from === issue.node || e.to === issue.node);
    return specIssue("topology", j === -1 ? placed.path : [...placed.path, j], issue.message);
  });
}
