import type { EngineEvent } from "@/server/graph/events";
import type { InstanceStatus } from "@/server/graph/persistence/records";

/**
 * What an instance version's event log adds up to, as the instance view paints it: each node's state
 * and completed-run count, the edges deliveries crossed, whether a pause is still draining. The
 * server folds the log once (instance-timeline.ts) so opening a run with 10,000 events does not ship
 * and fold them in the browser; the browser applies live events on top with the same rules
 * (components/instances/run-model.ts; run-state.test.ts holds the two to the same answers).
 */
export type RunNodeState = "running" | "completed" | "failed" | "cancelled" | "waiting";

export interface RunState {
  status: InstanceStatus | null;
  states: Map<string, RunNodeState>;
  runs: Map<string, number>;
  usedEdges: Set<string>;
  draining: { reason: "pause" | "stop"; finishing: string[] } | null;
  waitingNode: string | null;
}

/** A RunState as JSON. */
export interface RunStateDto {
  status: InstanceStatus | null;
  states: Record<string, RunNodeState>;
  runs: Record<string, number>;
  usedEdges: string[];
  draining: { reason: "pause" | "stop"; finishing: string[] } | null;
  waitingNode: string | null;
}

export function emptyRunState(): RunState {
  return { status: null, states: new Map(), runs: new Map(), usedEdges: new Set(), draining: null, waitingNode: null };
}

/** Applies one event; mutates `m`. */
export function applyRunEvent(m: RunState, e: EngineEvent): void {
  switch (e.type) {
    case "instance_status":
      m.status = e.to;
      if (e.to !== "running") m.draining = null;
      if (e.to === "running" && m.waitingNode) {
        m.states.set(m.waitingNode, "completed");
        m.waitingNode = null;
      }
      return;
    case "run_started":
      // A new version starts from a clean picture; a recovery run keeps what it knew.
      if (e.mode === "fresh") {
        m.states.clear();
        m.runs.clear();
        m.usedEdges.clear();
      }
      return;
    case "node_started":
      m.states.set(e.node, "running");
      return;
    case "node_completed":
      m.states.set(e.node, "completed");
      m.runs.set(e.node, (m.runs.get(e.node) ?? 0) + 1);
      return;
    case "node_failed":
      m.states.set(e.node, "failed");
      return;
    case "node_cancelled":
      m.states.set(e.node, "cancelled");
      return;
    case "deliver_promoted":
      m.usedEdges.add(`${e.source}->${e.target}`);
      return;
    case "interrupt_raised":
      m.states.set(e.node, "waiting");
      m.waitingNode = e.node;
      return;
    case "drained":
      m.draining = { reason: e.reason, finishing: [...e.finishing] };
      return;
    case "run_finished":
    case "deliver_staged":
    case "deliver_consumed":
      return;
  }
}

export function runStateDto(m: RunState): RunStateDto {
  return {
    status: m.status,
    states: Object.fromEntries(m.states),
    runs: Object.fromEntries(m.runs),
    usedEdges: [...m.usedEdges],
    draining: m.draining && { reason: m.draining.reason, finishing: [...m.draining.finishing] },
    waitingNode: m.waitingNode,
  };
}
