import type { ChatMessage } from "../llm/messages";

/** A session's conversation between turns. */
export interface SessionMemory {
  load(sessionId: string): Promise<ChatMessage[]>;
  save(sessionId: string, messages: readonly ChatMessage[]): Promise<void>;
}

export class InMemorySessionMemory implements SessionMemory {
  private readonly sessions = new Map<string, ChatMessage[]>();

  async load(sessionId: string): Promise<ChatMessage[]> {
    return structuredClone(this.sessions.get(sessionId) ?? []);
  }

  async save(sessionId: string, messages: readonly ChatMessage[]): Promise<void> {
    this.sessions.set(sessionId, structuredClone([...messages]));
  }
}
