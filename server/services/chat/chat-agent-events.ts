import type { ApprovalTransaction } from "@/server/agent/approval/approval-types";
import type { AgentEvent } from "@/server/agent/react/agent-events";
import type { AgentResult } from "@/server/agent/state/agent-result";
import type { ChatEventBody } from "./chat-event";
import type { Leg } from "./live-session";

/** Who decides in the chat view: the person at the browser (a session of the app; there is one user). */
const DECIDED_BY = "you";

/** Keeps what a leg streamed and the tokens its finished model calls used (an INTERRUPT ends the turn with them). */
export function trackLeg(leg: Leg, e: AgentEvent): void {
  if (e.type !== "llm_event") return;
  if (e.event.type === "text_delta") leg.streamed += e.event.text;
  else if (e.event.type === "reasoning_delta") leg.reasoning += e.event.text;
  else if (e.event.type === "tool_call_complete") leg.tools.push(e.event.call.name);
  else if (e.event.type === "usage_snapshot") leg.callUsage = e.event.usage;
  else if (e.event.type === "finish") settleCallUsage(leg);
}

/**
 * Adds the running call's usage to the leg's: at its finish, or when an INTERRUPT cut it (the client then
 * told its estimate as the call's last usage snapshot).
 */
export function settleCallUsage(leg: Leg): void {
  if (!leg.callUsage) return;
  leg.inputTokens += leg.callUsage.inputTokens;
  leg.outputTokens += leg.callUsage.outputTokens;
  if (leg.callUsage.estimated) leg.estimated = true;
  leg.callUsage = null;
}

export function toChatEvents(e: AgentEvent): ChatEventBody[] {
  switch (e.type) {
    case "llm_event": {
      const ev = e.event;
      if (ev.type === "text_delta") return [{ type: "text_delta", text: ev.text }];
      if (ev.type === "reasoning_delta") return [{ type: "reasoning_delta", text: ev.text }];
      if (ev.type === "tool_call_complete") return [{ type: "tool_call", callId: ev.call.id, name: ev.call.name, arguments: ev.call.arguments }];
      return [];
    }
    case "tool_result":
      return [{ type: "tool_result", callId: e.result.callId, name: e.result.name, content: e.result.content, isError: e.result.isError }];
    case "turn_completed":
      return [completedEvent(e.result)];
    case "approval_requested":
      return []; // published from the run's outcome instead (see ChatService.drive)
    case "context_summarized": {
      const { text, mode, prunedMessages, coveredMessages, tokensBefore, tokensAfter } = e.summary;
      return [{ type: "context_summarized", summary: text, mode, prunedMessages, coveredMessages, tokensBefore, tokensAfter }];
    }
  }
}

export function completedEvent(result: AgentResult): ChatEventBody {
  return {
    type: "turn_completed",
    stopReason: result.stopReason,
    content: result.content,
    tokens: result.usage.inputTokens + result.usage.outputTokens,
    inputTokens: result.usage.inputTokens,
    outputTokens: result.usage.outputTokens,
    ...(result.usage.estimated ? { estimated: true as const } : {}),
    error: result.error?.message ?? null,
  };
}

export function decidedEvent(t: ApprovalTransaction, approved: boolean, reason: string | null): ChatEventBody {
  return { type: "approval_decided", transactionId: t.id, callId: t.call.id, approved, reason, by: DECIDED_BY };
}
