import { isSystemReminder } from "../hook/builtin/system-reminder";
import type { ChatMessage } from "../llm/messages";
import type { TurnState } from "../state/turn-state";
import { ExtensionContext } from "./extension-context";
import type { ExtensionData } from "./extension-data";
import type { ExtensionPoint } from "./extension-point";

/**
 * A fresh context for one invocation of `point` during `turn`: the turn's ids, its user message, `data`.
 * `point` is there for the compiler: it ties `data` to that point's documented keys.
 */
export function turnExtensionContext<P extends ExtensionPoint>(turn: TurnState, _point: P, data: ExtensionData[P]): ExtensionContext<ExtensionData[P]> {
  return new ExtensionContext<ExtensionData[P]>({ sessionId: turn.sessionId, turnId: turn.turnId, message: lastUserMessage(turn.messages), data });
}

/**
 * The content of the turn's latest user message: what the person wrote, not a reminder the framework
 * added after it as a user message (the current time, an open todo list, a loop warning), which hooks
 * append at turn start. A graph node's input is itself a reminder (its envelope of upstream deliveries):
 * when every user message is one, the latest is it.
 */
export function lastUserMessage(messages: readonly ChatMessage[]): string | undefined {
  let reminder: string | undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== "user") continue;
    if (!isSystemReminder(m)) return m.content;
    reminder ??= m.content;
  }
  return reminder;
}
