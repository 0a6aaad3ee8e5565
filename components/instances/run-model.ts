import type { InstanceStatus, RunStateDto, StoredEventDto } from "@/components/api/contract";
import type { NodeRunState } from "@/components/canvas/node-state";
import { edgeId } from "@/components/canvas/topology";
import type { AgentApprovalRequest } from "@/server/agent/graph-node/agent-approval-request";

const AGENT_APPROVAL: AgentApprovalRequest["kind"] = "agent_approval";
export const isAgentApproval = (value: unknown) => (value as { kind?: unknown } | null)?.kind === AGENT_APPROVAL;

/**
 * What the instance view paints, folded from the event log (the server folds the log up to the
 * summary with the same rules, server/services/run-state.ts; run-model.test.ts keeps them equal): each node's state and run count, the
 * edges deliveries crossed, and whether a pause is still draining. Plain TypeScript; folding 10,000
 * events takes a few milliseconds, so the replay scrubber simply re-folds a prefix.
 */
export interface RunModel {
  status: InstanceStatus | null;
  /** Per node; a subgraph's inner nodes under `<subgraph node>/<inner node>`. */
  states: Map<string, NodeRunState>;
  /** Completed invocations per node. */
  runs: Map<string, number>;
  /** Edge ids that carried at least one delivery. */
  usedEdges: Set<string>;
  /** Nodes still finishing after a pause or stop was asked for; null when not draining. */
  draining: { reason: "pause" | "stop"; finishing: string[] } | null;
  waitingNode: string | null;
  /** The last node that failed, with its error. */
  failure: { node: string; error: string } | null;
  /** The version's first event and its last stop (paused, completed, …), ms. */
  startedAt: number | null;
  endedAt: number | null;
  /** Subgraph nesting, as server/services/run-state.ts explains. */
  depth: number;
  scope: string[];
  lastStarted: string | null;
}

export function emptyRunModel(): RunModel {
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

/** The model the server folded (`instances.timeline`), to apply live events on. */
export function runModelOf(s: RunStateDto): RunModel {
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

export function copyRunModel(m: RunModel): RunModel {
  return { ...m, states: new Map(m.states), runs: new Map(m.runs), usedEdges: new Set(m.usedEdges), scope: [...m.scope] };
}

/**
 * Applies one stored event; mutates `m` (callers copy when React must see a new object). Answers the
 * event's scope: the subgraph node path it happened inside ("" in the outer graph).
 */
export function applyEvent(m: RunModel, stored: StoredEventDto): string {
  const e = stored.event;
  m.startedAt ??= stored.at;
  const scope = m.scope.join("/");
  const q = (node: string) => (scope ? `${scope}/${node}` : node);
  switch (e.type) {
    case "instance_status":
      m.status = e.to;
      m.endedAt = e.to === "running" ? null : stored.at;
      // Any change of status ends a drain: after a pause and a resume, nothing is still "pausing".
      m.draining = null;
      if (e.to !== "running") {
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
      m.usedEdges.add(edgeId(q(e.source), q(e.target)));
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
      return scope;
  }
  return scope;
}

export function foldEvents(events: readonly StoredEventDto[], upTo = events.length): RunModel {
  const m = emptyRunModel();
  for (let i = 0; i < upTo && i < events.length; i++) applyEvent(m, events[i]);
  return m;
}

/** One line describing an event, for the timeline. */
export function describeEvent(stored: StoredEventDto): { title: string; detail: string; nodes: string[]; edge?: string } {
  const e = stored.event;
  switch (e.type) {
    case "instance_status":
      return { title: "status", detail: `${e.from ?? "new"} → ${e.to}`, nodes: [] };
    case "run_started":
      return { title: "run started", detail: `${e.mode}${e.seeds.length ? ` · seeds ${e.seeds.join(", ")}` : ""}`, nodes: e.seeds };
    case "run_finished":
      return { title: "run finished", detail: `${e.reachedEnd ? "reached END" : "did not reach END"} · ${e.iterations} steps`, nodes: [] };
    case "node_started":
      return { title: "started", detail: e.nodeInstance, nodes: [e.node] };
    case "node_completed":
      return { title: "completed", detail: `${e.nodeInstance} · ${ms(e.durationMs)} · ${e.delivered} out`, nodes: [e.node] };
    case "node_failed":
      return { title: "failed", detail: `${e.nodeInstance}: ${e.error}`, nodes: [e.node] };
    case "node_cancelled":
      return { title: "cancelled", detail: `${e.nodeInstance}: ${e.reason}`, nodes: [e.node] };
    case "deliver_staged":
      return { title: "staged", detail: `${e.source} → ${e.target}`, nodes: [e.source, e.target], edge: edgeId(e.source, e.target) };
    case "deliver_promoted":
      return { title: "deliver", detail: `${e.source} → ${e.target}: ${preview(e.payload)}`, nodes: [e.source, e.target], edge: edgeId(e.source, e.target) };
    case "deliver_consumed":
      return { title: "consumed", detail: `${e.target} took ${e.source}'s deliver`, nodes: [e.target], edge: edgeId(e.source, e.target) };
    case "interrupt_raised":
      return isAgentApproval(e.value)
        ? { title: "approval", detail: `${e.node} waits for approval of ${(e.value as AgentApprovalRequest).tool}`, nodes: [e.node] }
        : { title: "waiting", detail: `${e.node} waits for input`, nodes: [e.node] };
    case "drained":
      return { title: e.reason === "pause" ? "pausing" : "stopping", detail: e.finishing.length ? `finishing ${e.finishing.join(", ")}` : "nothing in flight", nodes: e.finishing };
    case "node_activity":
      return { title: ACTIVITY_TITLE[e.activity.kind], detail: `${e.node}: ${preview(e.activity.summary)}`, nodes: [e.node] };
  }
}

/** An agent activity's name in the timeline's type column, 23 characters at most (the column's width). */
const ACTIVITY_TITLE: Record<Extract<StoredEventDto["event"], { type: "node_activity" }>["activity"]["kind"], string> = {
  turn_started: "agent turn started",
  message: "agent message",
  tool_call: "agent tool call",
  tool_result: "agent tool result",
  usage: "agent usage",
  approval_requested: "agent asks approval",
  approval_decided: "agent approval decided",
  turn_ended: "agent turn ended",
};

function ms(value: number): string {
  return value < 10 ? `${value.toFixed(1)} ms` : `${Math.round(value)} ms`;
}

export function preview(value: unknown, max = 80): string {
  let text: string;
  try {
    text = typeof value === "string" ? value : JSON.stringify(unwrap(value));
  } catch {
    text = String(value);
  }
  if (text === undefined) text = "null";
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Graph payloads wrap content in an envelope; people want the content. */
export function unwrap(value: unknown): unknown {
  if (value && typeof value === "object" && "content" in value && Object.keys(value).length <= 4) return (value as { content: unknown }).content;
  return value;
}
