import { StopReason } from "../../stop-reason";
import { TurnCustomKey } from "../../state/turn-custom";
import { TurnCustomKeys } from "../../state/turn-custom-keys";
import { openTodos, renderTodos, todoListOf } from "../../tools/builtin/todo-list";
import type { HookContext } from "../hook-context";
import { AfterTurnHook } from "../hook-contracts";
import { systemReminder } from "./system-reminder";

/** Run it first among AFTER_TURN sources, so its reminder (with the todo list) lands first. */
export const TODO_CONTINUATION_PRIORITY = -1000;

interface TodoContinuationState {
  /** The todo list as it was at the last nudge. */
  lastList: string;
}

export const TODO_CONTINUATION = new TurnCustomKey<TodoContinuationState>("todo_continuation.state");

/**
 * When a turn completes with todos still open, asks for another attempt, appending a reminder with the
 * active list. Deadlock prevention: if the list did not change since the previous nudge, the agent is not
 * progressing and the turn is allowed to end. While it progresses it sets the renew watchdog, so the gate
 * may extend the budget once rather than cut a working agent off at the ceiling.
 */
export class TodoContinuationHook extends AfterTurnHook {
  afterTurn(ctx: HookContext<"AFTER_TURN">): void {
    if (ctx.result.stopReason !== StopReason.COMPLETED) return;
    const todos = todoListOf(ctx.turn.messages);
    const open = openTodos(todos);
    if (open.length === 0) return;
    const list = renderTodos(todos);
    const previous = ctx.turn.custom.get(TODO_CONTINUATION);
    if (previous && previous.lastList === list) return; // no progress since the last nudge: let the turn end
    const atCeiling = ctx.turn.turnAttempt >= ctx.turn.maxTurns;
    if (atCeiling && ctx.turn.custom.has(TurnCustomKeys.CONTINUATION_RENEWED)) return;
    ctx.turn.custom.set(TODO_CONTINUATION, { lastList: list });
    ctx.turn.messages.push(systemReminder(`You still have ${open.length} open todo item(s):\n${list}\nContinue working on them, or update the list if they are done.`));
    ctx.turn.custom.set(TurnCustomKeys.CONTINUATION_REQUEST, true);
    if (atCeiling) ctx.turn.custom.set(TurnCustomKeys.CONTINUATION_RENEW_MAX_TURNS, true);
  }
}
