import type { RouterOutputs } from "@/server/api/root";

export type ChatEventDto = RouterOutputs["chat"]["events"][number];
export type ChatSessionDto = RouterOutputs["chat"]["list"][number];
export type ChatStatusDto = RouterOutputs["chat"]["status"];

/** A tool call that needed the person's approval: asked, then approved or denied (by whom, when). */
export interface ToolApproval {
  transactionId: string;
  state: "pending" | "approved" | "denied";
  reason: string | null;
  by: string | null;
  decidedAt: number | null;
}

export interface ToolUse {
  callId: string;
  name: string;
  arguments: string;
  result: { content: string; isError: boolean } | null;
  approval: ToolApproval | null;
}

export interface ChatTurn {
  turnId: string;
  user: string;
  at: number;
  /** The assistant's text as streamed (the final answer once the turn completed). */
  text: string;
  reasoning: string;
  tools: ToolUse[];
  /** "waiting": suspended until a tool call's approval is decided. */
  state: "running" | "waiting" | "completed" | "stopped" | "failed";
  /** Why a turn that did not complete ended (a stop reason or an error message). */
  note: string | null;
}

/** Folds a chat's events (in sequence order) into its turns, for display. */
export function foldChat(events: readonly ChatEventDto[]): ChatTurn[] {
  const turns: ChatTurn[] = [];
  const byId = new Map<string, ChatTurn>();
  for (const e of events) {
    let turn = byId.get(e.turnId);
    if (e.type === "user_message") {
      turn = { turnId: e.turnId, user: e.text, at: e.at, text: "", reasoning: "", tools: [], state: "running", note: null };
      byId.set(e.turnId, turn);
      turns.push(turn);
      continue;
    }
    if (!turn) continue;
    switch (e.type) {
      case "text_delta":
        turn.text += e.text;
        break;
      case "reasoning_delta":
        turn.reasoning += e.text;
        break;
      case "tool_call":
        turn.tools.push({ callId: e.callId, name: e.name, arguments: e.arguments, result: null, approval: null });
        // Text streamed before a tool call was the model thinking aloud; the answer comes after.
        break;
      case "tool_result": {
        const use = turn.tools.find((t) => t.callId === e.callId);
        if (use) use.result = { content: e.content, isError: e.isError };
        break;
      }
      case "approval_requested": {
        const use = toolOf(turn, e);
        use.approval = { transactionId: e.transactionId, state: "pending", reason: null, by: null, decidedAt: null };
        turn.state = "waiting";
        break;
      }
      case "approval_decided": {
        const use = turn.tools.find((t) => t.approval?.transactionId === e.transactionId);
        if (use?.approval) use.approval = { ...use.approval, state: e.approved ? "approved" : "denied", reason: e.reason, by: e.by, decidedAt: e.at };
        if (turn.state === "waiting") turn.state = "running";
        break;
      }
      case "turn_completed":
        turn.state = e.stopReason === "completed" ? "completed" : e.stopReason === "cancelled" ? "stopped" : "failed";
        // A stopped turn keeps what streamed; its result text only says that it was stopped.
        if (e.content && (e.stopReason === "completed" || turn.text === "")) turn.text = e.content;
        turn.note = e.stopReason === "completed" ? null : (e.error ?? e.stopReason.replaceAll("_", " "));
        break;
      case "turn_failed":
        turn.state = "failed";
        turn.note = e.message;
        break;
    }
  }
  return turns;
}

/** The call an approval is about (the tool_call event normally came first; otherwise it is added). */
function toolOf(turn: ChatTurn, e: { callId: string; name: string; arguments: string }): ToolUse {
  const found = turn.tools.find((t) => t.callId === e.callId);
  if (found) return found;
  const use: ToolUse = { callId: e.callId, name: e.name, arguments: e.arguments, result: null, approval: null };
  turn.tools.push(use);
  return use;
}

/** The instance a successful `run_graph` call started (its result is JSON naming `instanceId`), if any. */
export function startedInstanceOf(use: ToolUse): string | null {
  if (use.name !== "run_graph" || !use.result || use.result.isError) return null;
  try {
    const parsed = JSON.parse(use.result.content) as { instanceId?: unknown };
    return typeof parsed.instanceId === "string" && /^[\w-]+$/.test(parsed.instanceId) ? parsed.instanceId : null;
  } catch {
    return null;
  }
}

/** Tool arguments as indented JSON (as sent when they are not JSON). */
export function prettyArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
