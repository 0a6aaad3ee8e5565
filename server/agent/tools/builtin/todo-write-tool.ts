import { z } from "zod";
import { defineTool, type Tool } from "../tool";
import { TodoItemSchema, openTodos, type TodoStore } from "./todo-store";

const TodoWriteArgs = z.object({
  todos: z.array(TodoItemSchema).describe("The complete, updated todo list (replaces the previous one)"),
});

/** `todo_write`: replaces the session's todo list; the model plans and tracks multi-step work with it. */
export function todoWriteTool(store: TodoStore): Tool<typeof TodoWriteArgs> {
  return defineTool({
    name: "todo_write",
    description: "Write your todo list for this task. Send the whole list every time; mark items in_progress and completed as you go.",
    args: TodoWriteArgs,
    execute: ({ todos }, ctx) => {
      store.set(ctx.sessionId, todos);
      return `Todo list saved: ${todos.length} items, ${openTodos(todos).length} open.`;
    },
  });
}
