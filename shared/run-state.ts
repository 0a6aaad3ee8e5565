import type { AgentApprovalRequest } from "@/server/agent/graph-node/agent-approval-request";
import type { EngineEvent } from "@/server/graph/events";
import type { InstanceStatus } from "@/server/graph/persistence/records";

/**
 * What an instance version's event log adds up to, as the instance view paints it: each node's state
 * and completed-run count, the edges deliveries crossed, whether a pause is still draining. One fold
 * for both sides: the server folds the log once (server/services/instance-timeline.ts) so opening a
 * run with 10,000 events does not ship and fold them in the browser; the browser carries on from that
 * summary with live events (components/instances/use-instance-timeline.ts). Plain TypeScript that
 * imports server code as types only, so the browser may run it.
 */

const AGENT_APPROVAL: AgentApprovalRequest["kind"] = "agent_approval";
/** Whether an interrupt's value is an agent node's approval request (server/agent's isAgentApprovalRequest, for the browser too). */
export const isAgentApproval = (value: unknown) => (value as { kind?: unknown } | null)?.kind === AGENT_APPROVAL;

/** `approval`: an agent node's tool call waits for Approve / Deny; `waiting`: any other interrupt (a person's input). */
/** `interrupted`: it was running when its process died (the instance crashed); a recovery runs it again. */
export type RunNodeState = "running" | "completed" | "failed" | "cancelled" | "waiting" | "approval" | "interrupted";

export interface RunState {
  status: InstanceStatus | null;
  /** Per node; a subgraph's inner nodes under `<subgraph node>/<inner node>`. */
  states: Map<string, RunNodeState>;
  runs: Map<string, number>;
  usedEdges: Set<string>;
  draining: { reason: "pause" | "stop"; finishing: string[] } | null;
  waitingNode: string | null;
  /** The last node that failed, with its error (qualified as `states` is); node null: the run failed outside any node. */
  failure: { node: string | null; error: string } | null;
  /** When the version's first event and its last stop (paused, completed, …) happened; ms. */
  startedAt: number | null;
  endedAt: number | null;
  /**
   * Subgraph nesting. A subgraph node runs its inner graph in the same instance, whose events (its own
   * run_started, __start__, nodes, __end__, run_finished) come between the subgraph node's started and
   * completed events under the inner graph's names. `depth` counts the runs in progress (1 in the outer
   * run); `scope` names the subgraph nodes whose inner runs are in progress, outermost first (a run
   * started while one is in progress belongs to the node started last). Two subgraph nodes running
   * side by side would be told apart only by order.
   */
  depth: number;
  scope: string[];
  lastStarted: string | null;
}

/** A RunState as JSON. */
export interface RunStateDto {
  status: InstanceStatus | null;
  states: Record<string, RunNodeState>;
  runs: Record<string, number>;
  usedEdges: string[];
  draining: { reason: "pause" | "stop"; finishing: string[] } | null;
  waitingNode: string | null;
  failure: { node: string | null; error: string } | null;
  startedAt: number | null;
  endedAt: number | null;
  depth: number;
  scope: string[];
  lastStarted: string | null;
}

export function emptyRunState(): RunState {
  return {
    status: null,
    states: new Map(),
    runs: new Map(),
    usedEdges: new Set(),
    draining: null,
    waitingNode: null,
    failure: null,
    startedAt: null,
    endedAt: null,
    depth: 0,
    scope: [],
    lastStarted: null,
  };
}

/** Fields of `E` typed `unknown`: JSON may leave them out (`undefined` does not survive it). */
type UnknownKeys<E> = { [K in keyof E]-?: unknown extends E[K] ? K : never }[keyof E];
/** Each event of the union `E` with its `unknown` fields optional, as JSON carries it. */
type AsJson<E> = E extends unknown ? Omit<E, UnknownKeys<E>> & Partial<Pick<E, UnknownKeys<E>>> : never;

/** An engine event as logged, or as the browser receives it. */
export type RunEvent = AsJson<EngineEvent>;

/**
 * Applies one event (logged at `at`, ms); mutates `m`. Answers the event's scope: the subgraph node
 * path it happened inside ("" in the outer graph), e.g. "greeting" for the greet subgraph's events.
 */
export function applyRunEvent(m: RunState, e: RunEvent, at: number | null = null): string {
  if (at !== null) m.startedAt ??= at;
  const scope = m.scope.join("/");
  const q = (node: string) => (scope ? `${scope}/${node}` : node);
  switch (e.type) {
    case "instance_status":
      m.status = e.to;
      // A run that failed outside any node (max iterations, …) has only this event to say why.
      if (e.to === "failed" && e.error && !m.failure) m.failure = { node: null, error: e.error };
      if (e.to === "crashed") for (const [node, state] of m.states) if (state === "running") m.states.set(node, "interrupted");
      m.endedAt = e.to === "running" ? null : at;
      // Any change of status ends a drain: after a pause and a resume, nothing is still "pausing".
      m.draining = null;
      if (e.to !== "running") {
        // A stop abandons inner runs without their run_finished.
        m.depth = 0;
        m.scope = [];
      }
      if (e.to === "running" && m.waitingNode) {
        m.states.set(m.waitingNode, "completed");
        m.waitingNode = null;
      }
      return scope;
    case "run_started":
      if (m.depth > 0) {
        m.scope = [...m.scope, m.lastStarted ?? "subgraph"];
      } else if (e.mode === "fresh") {
        // A new version starts from a clean picture; a recovery run keeps what it knew.
        m.states.clear();
        m.runs.clear();
        m.usedEdges.clear();
        m.failure = null;
      }
      m.depth++;
      return m.depth > 1 ? m.scope.join("/") : scope;
    case "run_finished":
      m.depth = Math.max(0, m.depth - 1);
      if (m.scope.length > Math.max(0, m.depth - 1)) m.scope = m.scope.slice(0, Math.max(0, m.depth - 1));
      return scope;
    case "node_started":
      m.states.set(q(e.node), "running");
      m.lastStarted = q(e.node);
      return scope;
    case "node_completed":
      m.states.set(q(e.node), "completed");
      m.runs.set(q(e.node), (m.runs.get(q(e.node)) ?? 0) + 1);
      return scope;
    case "node_failed":
      m.states.set(q(e.node), "failed");
      m.failure = { node: q(e.node), error: e.error };
      return scope;
    case "node_cancelled":
      m.states.set(q(e.node), "cancelled");
      return scope;
    case "deliver_promoted":
      m.usedEdges.add(`${q(e.source)}->${q(e.target)}`);
      return scope;
    case "interrupt_raised":
      m.states.set(e.node, isAgentApproval(e.value) ? "approval" : "waiting");
      m.waitingNode = e.node;
      return scope;
    case "drained":
      // Announced once the run has stopped (after its status moved): only a running run is still draining.
      if (m.status === "running") m.draining = { reason: e.reason, finishing: [...e.finishing] };
      return scope;
    case "deliver_staged":
    case "deliver_consumed":
    case "node_activity":
      return scope;
  }
}

/** A copy to show while the fold goes on mutating the original (React must see a new object). */
export function copyRunState(m: RunState): RunState {
  return { ...m, states: new Map(m.states), runs: new Map(m.runs), usedEdges: new Set(m.usedEdges), scope: [...m.scope] };
}

/** The state a RunStateDto holds, to apply live events on. */
export function runStateOf(s: RunStateDto): RunState {
  return {
    status: s.status,
    states: new Map(Object.entries(s.states)),
    runs: new Map(Object.entries(s.runs)),
    usedEdges: new Set(s.usedEdges),
    draining: s.draining && { reason: s.draining.reason, finishing: [...s.draining.finishing] },
    waitingNode: s.waitingNode,
    failure: s.failure && { ...s.failure },
    startedAt: s.startedAt,
    endedAt: s.endedAt,
    depth: s.depth,
    scope: [...s.scope],
    lastStarted: s.lastStarted,
  };
}

export function runStateDto(m: RunState): RunStateDto {
  return {
    status: m.status,
    states: Object.fromEntries(m.states),
    runs: Object.fromEntries(m.runs),
    usedEdges: [...m.usedEdges],
    draining: m.draining && { reason: m.draining.reason, finishing: [...m.draining.finishing] },
    waitingNode: m.waitingNode,
    failure: m.failure && { ...m.failure },
    startedAt: m.startedAt,
    endedAt: m.endedAt,
    depth: m.depth,
    scope: [...m.scope],
    lastStarted: m.lastStarted,
  };
}
