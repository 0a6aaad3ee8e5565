import type { StoredEventDto } from "@/components/api/contract";
import { edgeId } from "@/shared/canvas/topology";
import type { AgentApprovalRequest } from "@/server/agent/graph-node/agent-approval-request";
import { applyRunEvent, emptyRunState, isAgentApproval, type RunState } from "@/shared/run-state";
import { resumeAnswerOf } from "@/shared/resume-answer";

/**
 * The instance view's reading of an event log: the fold of shared/run-state.ts over stored events, and
 * each event's line in the timeline. Folding 10,000 events takes a few milliseconds, so the replay
 * scrubber simply re-folds a prefix.
 */

/**
 * Applies one stored event; mutates `m` (callers copy when React must see a new object). Answers the
 * event's scope: the subgraph node path it happened inside ("" in the outer graph).
 */
export function applyEvent(m: RunState, stored: StoredEventDto): string {
  return applyRunEvent(m, stored.event, stored.at);
}

export function foldEvents(events: readonly StoredEventDto[], upTo = events.length): RunState {
  const m = emptyRunState();
  for (let i = 0; i < upTo && i < events.length; i++) applyEvent(m, events[i]);
  return m;
}

/** One line describing an event, for the timeline. */
export function describeEvent(stored: StoredEventDto): { title: string; detail: string; nodes: string[]; edge?: string } {
  const e = stored.event;
  switch (e.type) {
    case "instance_status":
      return { title: "status", detail: `${e.from ?? "new"} → ${e.to}${e.error ? `: ${e.error}` : ""}`, nodes: [] };
    case "run_started": {
      // The engine's "recovery" is any run that goes on from the ledger: after an answer, a resume or a
      // crash alike. Read right after answering, the word said the run had crashed.
      const how = e.mode === "fresh" ? "from the start" : "picks up where it stopped";
      return { title: "run started", detail: `${how}${e.seeds.length ? ` · ready: ${e.seeds.join(", ")}` : ""}`, nodes: e.seeds };
    }
    case "run_finished":
      return { title: "run finished", detail: `${e.reachedEnd ? "reached END" : "did not reach END"} · ${e.iterations} steps`, nodes: [] };
    case "node_started":
      return { title: "started", detail: e.nodeInstance, nodes: [e.node] };
    case "node_completed":
      return { title: "completed", detail: `${e.nodeInstance} · ${ms(e.durationMs)} · ${e.delivered} out`, nodes: [e.node] };
    case "node_failed":
      return { title: "failed", detail: `${e.nodeInstance}: ${e.error}`, nodes: [e.node] };
    case "node_cancelled":
      // An interrupt ends the node's invocation as cancelled; to a reader it asked and now waits.
      return e.reason === "interrupt"
        ? { title: "suspended", detail: `${e.nodeInstance}: waits for an answer`, nodes: [e.node] }
        : { title: "cancelled", detail: `${e.nodeInstance}: ${e.reason}`, nodes: [e.node] };
    case "deliver_staged":
      return { title: "staged", detail: `${e.source} → ${e.target}`, nodes: [e.source, e.target], edge: edgeId(e.source, e.target) };
    case "deliver_promoted": {
      // A resume's deliver is the answer itself: said as such, not as the engine's resume marker.
      const answer = resumeAnswerOf(e);
      if (answer?.kind === "answer") return { title: "answered", detail: `${answer.node}: ${preview(answer.value)}`, nodes: [answer.node] };
      if (answer?.kind === "decision") return { title: "decided", detail: `${answer.node}: ${answer.approved ? "approved" : "denied"}`, nodes: [answer.node] };
      return { title: "deliver", detail: `${e.source} → ${e.target}: ${preview(e.payload)}`, nodes: [e.source, e.target], edge: edgeId(e.source, e.target) };
    }
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
  turn_resumed: "agent turn resumed",
  message: "agent message",
  tool_call: "agent tool call",
  tool_result: "agent tool result",
  usage: "agent usage",
  context_summarized: "agent context summary",
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
