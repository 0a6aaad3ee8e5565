import { systemReminder } from "../hook/builtin/system-reminder";
import { openTodos, renderTodos, todoListOf } from "../tools/builtin/todo-list";
import type { MemoryHook, MemoryHookContext } from "./memory-hook";

/**
 * After a cleanup took older messages out of the context, the todo list the agent wrote there (todo_write
 * calls) is out of its sight: this re-states the open items at the end of the request that follows the
 * cleanup, as TodoContinuationHook states them (the same todo machinery, read from the whole history).
 * Only that request carries it: the agent's next todo_write is in the kept messages from then on.
 */
export class TodoReorientationHook implements MemoryHook {
  readonly name = "todo_reorientation";

  CLEANUP_FINISHED(ctx: MemoryHookContext<"CLEANUP_FINISHED">): void {
    const todos = todoListOf(ctx.turn.messages);
    if (openTodos(todos).length === 0) return;
    // Already in sight: the latest todo_write is among the messages kept.
    if (todoListOf(ctx.turn.messages.slice(ctx.payload.summary.coveredMessages)).length > 0) return;
    ctx.payload.context.push(systemReminder(`Earlier messages were summarized to keep the conversation within the context. Your todo list:\n${renderTodos(todos)}\nContinue from it.`));
  }
}
