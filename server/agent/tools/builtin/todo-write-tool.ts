import { defineTool, type Tool } from "../tool";
import { TODO_WRITE, TodoWriteArgs, openTodos } from "./todo-list";

/**
 * `todo_write`: replaces the session's todo list; the model plans and tracks multi-step work with it.
 * The call itself, kept in the conversation, is the write (todoListOf reads it back): nothing else is stored.
 */
export function todoWriteTool(): Tool<typeof TodoWriteArgs> {
  return defineTool({
    name: TODO_WRITE,
    description: "Write your todo list for this task. Send the whole list every time; mark items in_progress and completed as you go.",
    args: TodoWriteArgs,
    execute: ({ todos }) => `Todo list saved: ${todos.length} items, ${openTodos(todos).length} open.`,
  });
}
