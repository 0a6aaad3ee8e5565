import type { ChatMessage } from "../../llm/messages";

const OPEN = "<system-reminder>";

/** A framework reminder in the conversation. Sent as a user message so every provider accepts it. */
export function systemReminder(text: string): ChatMessage {
  return { role: "user", content: `${OPEN}${text}</system-reminder>` };
}

export function isSystemReminder(message: ChatMessage): boolean {
  return message.role === "user" && message.content.startsWith(OPEN);
}
