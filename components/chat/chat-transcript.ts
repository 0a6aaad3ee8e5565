import type { RouterOutputs } from "@/server/api/root";

export type ChatEventDto = RouterOutputs["chat"]["events"][number];
export type ChatSessionDto = RouterOutputs["chat"]["list"][number];
export type ChatStatusDto = RouterOutputs["chat"]["status"];

export interface ToolUse {
  callId: string;
  name: string;
  arguments: string;
  result: { content: string; isError: boolean } | null;
}

export interface ChatTurn {
  turnId: string;
  user: string;
  at: number;
  /** The assistant's text as streamed (the final answer once the turn completed). */
  text: string;
  reasoning: string;
  tools: ToolUse[];
  state: "running" | "completed" | "stopped" | "failed";
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
        turn.tools.push({ callId: e.callId, name: e.name, arguments: e.arguments, result: null });
        // Text streamed before a tool call was the model thinking aloud; the answer comes after.
        break;
      case "tool_result": {
        const use = turn.tools.find((t) => t.callId === e.callId);
        if (use) use.result = { content: e.content, isError: e.isError };
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
