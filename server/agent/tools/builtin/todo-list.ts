import { z } from "zod";
import type { ChatMessage } from "../../llm/messages";

export const TODO_WRITE = "todo_write";

export const TodoItemSchema = z.object({
  content: z.string().min(1),
  status: z.enum(["pending", "in_progress", "completed"]),
});
export type TodoItem = z.infer<typeof TodoItemSchema>;

export const TodoWriteArgs = z.object({
  todos: z.array(TodoItemSchema).describe("The complete, updated todo list (replaces the previous one)"),
});

/**
 * A session's todo list: the list of its latest `todo_write` call that succeeded (each call replaces
 * the list). It is read from the conversation rather than kept beside it, so it is exactly as durable
 * as what the agent already checkpoints: a chat's or an agent node's memory between turns, the turn
 * snapshot while a turn waits on an approval. A restart keeps it; a turn a crash loses takes its
 * writes with it, as it takes its messages.
 */
export function todoListOf(messages: readonly ChatMessage[]): TodoItem[] {
  const succeeded = new Set(messages.flatMap((m) => (m.role === "tool" && !m.isError ? [m.toolCallId] : [])));
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role !== "assistant") continue;
    const calls = (message.toolCalls ?? []).filter((c) => c.name === TODO_WRITE && succeeded.has(c.id));
    for (const call of calls.reverse()) {
      const list = parsedList(call.arguments);
      if (list) return list;
    }
  }
  return [];
}

function parsedList(text: string): TodoItem[] | null {
  try {
    const parsed = TodoWriteArgs.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.todos : null;
  } catch {
    return null;
  }
}

export function openTodos(todos: readonly TodoItem[]): TodoItem[] {
  return todos.filter((t) => t.status !== "completed");
}

export function renderTodos(todos: readonly TodoItem[]): string {
  return todos.map((t) => `- [${t.status}] ${t.content}`).join("\n");
}
