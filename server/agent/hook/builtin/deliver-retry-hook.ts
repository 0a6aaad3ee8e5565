import type { ChatMessage } from "../../llm/messages";
import { StopReason } from "../../stop-reason";
import { TurnCustomKeys } from "../../state/turn-custom-keys";
import type { HookContext } from "../hook-context";
import { AfterTurnHook } from "../hook-contracts";
import { isSystemReminder, systemReminder } from "./system-reminder";

/**
 * For agents running as graph nodes: when a turn attempt completes without a successful call of the
 * deliver tool, appends a reminder (after the assistant message, so the next attempt sees it last) and
 * requests a continuation — only when the turn budget allows another attempt.
 */
export class DeliverRetryHook extends AfterTurnHook {
  constructor(private readonly deliverTool: string = "deliver") {
    super();
  }

  afterTurn(ctx: HookContext<"AFTER_TURN">): void {
    const { turn } = ctx;
    if (ctx.result.stopReason !== StopReason.COMPLETED) return;
    if (deliveredThisTurn(turn.messages, this.deliverTool)) return;
    if (turn.turnAttempt >= turn.maxTurns) return;
    turn.messages.push(systemReminder(`You finished without calling ${this.deliverTool}. Your work only reaches the next node through ${this.deliverTool}: call it with your result.`));
    turn.custom.set(TurnCustomKeys.CONTINUATION_REQUEST, true);
  }
}

/** A successful deliver result since the turn's input (the last real user message). */
function deliveredThisTurn(messages: readonly ChatMessage[], tool: string): boolean {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === "tool" && m.name === tool && !m.isError) return true;
    if (m.role === "user" && !isSystemReminder(m)) return false;
  }
  return false;
}
