import { z } from "zod";

export const TodoItemSchema = z.object({
  content: z.string().min(1),
  status: z.enum(["pending", "in_progress", "completed"]),
});
export type TodoItem = z.infer<typeof TodoItemSchema>;

/** A session's todo list, written by the todo_write tool and read by TodoContinuationHook. */
export interface TodoStore {
  get(sessionId: string): TodoItem[];
  set(sessionId: string, todos: readonly TodoItem[]): void;
}

export class InMemoryTodoStore implements TodoStore {
  private readonly lists = new Map<string, TodoItem[]>();

  get(sessionId: string): TodoItem[] {
    return structuredClone(this.lists.get(sessionId) ?? []);
  }

  set(sessionId: string, todos: readonly TodoItem[]): void {
    this.lists.set(sessionId, structuredClone([...todos]));
  }
}

export function openTodos(todos: readonly TodoItem[]): TodoItem[] {
  return todos.filter((t) => t.status !== "completed");
}

export function renderTodos(todos: readonly TodoItem[]): string {
  return todos.map((t) => `- [${t.status}] ${t.content}`).join("\n");
}
