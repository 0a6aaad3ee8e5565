import { END, START } from "@/server/graph/names";
import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import { ServiceError } from "./errors";

/**
 * Breakpoints of an instance, kept in its attrs so they outlive a run and a restart: the run pauses
 * before any of these nodes starts and `held_at` names the node it paused before. Resume (Continue)
 * lets that node start once; Step lets the next node start, then holds before the one after.
 */
export const BREAKPOINTS_ATTR = "breakpoints";
export const HELD_AT_ATTR = "held_at";

export function breakpointsOf(instance: GraphInstanceRecord): string[] {
  const value = instance.attrs[BREAKPOINTS_ATTR];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The node a paused instance holds before, or null (not paused at a breakpoint or a step). */
export function heldAt(instance: GraphInstanceRecord): string | null {
  const value = instance.attrs[HELD_AT_ATTR];
  return instance.status === "paused" && typeof value === "string" ? value : null;
}

/** The names breakpoints may name: the instance's own nodes (START, END and subgraph inner nodes aside). */
export function checkBreakpoints(nodeIdMap: Record<string, string>, nodes: readonly string[]): string[] {
  const known = Object.keys(nodeIdMap).filter((n) => n !== START && n !== END && !n.includes("/"));
  const unknown = nodes.filter((n) => !known.includes(n));
  if (unknown.length > 0) throw new ServiceError("BAD_REQUEST", `unknown node${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}; nodes: ${known.join(", ")}`);
  return [...new Set(nodes)];
}
