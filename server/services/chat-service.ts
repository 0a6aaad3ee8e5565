import { InMemoryControlChannel } from "@/server/agent/control/in-memory-control-channel";
import type { LlmProvider } from "@/server/agent/llm/llm-provider";
import type { AgentEvent } from "@/server/agent/react/agent-events";
import { ReactAgent } from "@/server/agent/react/react-agent";
import type { AgentResult } from "@/server/agent/state/agent-result";
import { InMemorySessionMemory } from "@/server/agent/react/session-memory";
import { InMemoryTodoStore } from "@/server/agent/tools/builtin/todo-store";
import { todoWriteTool } from "@/server/agent/tools/builtin/todo-write-tool";
import { newSnowflake } from "@/server/graph/ids";
import { NO_MODEL_MESSAGE } from "./agent-nodes";
import { notFound, ServiceError } from "./errors";
import { liveStream } from "./live-stream";

/** What a chat session shows, in order; each carries a sequence number for replay after a reconnect. */
export type ChatEvent = { seq: number; sessionId: string; turnId: string; at: number } & (
  | { type: "user_message"; text: string }
  | { type: "text_delta"; text: string }
  | { type: "reasoning_delta"; text: string }
  | { type: "tool_call"; callId: string; name: string; arguments: string }
  | { type: "tool_result"; callId: string; name: string; content: string; isError: boolean }
  | { type: "turn_completed"; stopReason: string; content: string; tokens: number; error: string | null }
  | { type: "turn_failed"; message: string }
);

type ChatEventBody = DistributiveOmit<ChatEvent, "seq" | "sessionId" | "turnId" | "at">;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface ChatSessionSummary {
  sessionId: string;
  title: string;
  turns: number;
  running: boolean;
  updatedAt: number;
}

interface Session {
  events: ChatEvent[];
  turns: number;
  running: string | null;
  updatedAt: number;
  listeners: Set<(e: ChatEvent) => void>;
}

const SYSTEM_PROMPT =
  "You are the assistant of Modex, a system for building, running and watching agent workflows as graphs. Answer clearly and briefly; use your todo list for multi-step work.";

/**
 * Chat with a ReAct agent, one conversation per session: each message is one agent turn whose LLM
 * stream, tool calls and result are published as ChatEvents (kept in memory for the session's
 * transcript; a restart forgets them). Stop cancels the turn through the control plane (CANCEL_TURN).
 */
export class ChatService {
  private readonly sessions = new Map<string, Session>();
  private readonly turnSession = new Map<string, string>();
  private readonly channel = new InMemoryControlChannel();
  private readonly agent: ReactAgent | null;
  private seq = 0;

  constructor(private readonly options: { provider: LlmProvider | null; model: string | null; now?: () => number }) {
    const todos = new InMemoryTodoStore();
    this.agent = options.provider
      ? new ReactAgent({
          provider: options.provider,
          tools: [todoWriteTool(todos)],
          channel: this.channel,
          memory: new InMemorySessionMemory(),
          systemPrompt: SYSTEM_PROMPT,
          onEvent: (e) => this.onAgentEvent(e),
        })
      : null;
  }

  status(): { configured: boolean; model: string | null; message: string | null } {
    return { configured: this.agent !== null, model: this.options.model, message: this.agent ? null : NO_MODEL_MESSAGE };
  }

  list(): ChatSessionSummary[] {
    return [...this.sessions.entries()]
      .map(([sessionId, s]) => ({ sessionId, title: titleOf(s), turns: s.turns, running: s.running !== null, updatedAt: s.updatedAt }))
      .sort((a, b) => b.updatedAt - a.updatedAt);
  }

  /** Starts a turn (a new session without `sessionId`); answers at once with the ids to follow. */
  send(args: { sessionId?: string; message: string }): { sessionId: string; turnId: string } {
    if (!this.agent) throw new ServiceError("INVALID_STATE", NO_MODEL_MESSAGE);
    const sessionId = args.sessionId ?? newSnowflake();
    const session = args.sessionId ? this.require(args.sessionId) : this.open(sessionId);
    if (session.running) throw new ServiceError("INVALID_STATE", "a turn is already running in this chat: wait for it, or stop it");
    const turnId = newSnowflake();
    session.running = turnId;
    session.turns++;
    this.turnSession.set(turnId, sessionId);
    this.publish(sessionId, turnId, { type: "user_message", text: args.message });
    void this.runTurn(this.agent, sessionId, turnId, args.message);
    return { sessionId, turnId };
  }

  /** Cancels the running turn of a session (the agent ends it with stopReason "cancelled"). */
  cancel(sessionId: string): { cancelled: boolean } {
    const session = this.require(sessionId);
    if (!session.running) return { cancelled: false };
    this.channel.send({ type: "CANCEL_TURN", scope: "turn", sessionId, turnId: session.running });
    return { cancelled: true };
  }

  events(sessionId: string, afterSeq = 0): ChatEvent[] {
    return this.require(sessionId).events.filter((e) => e.seq > afterSeq);
  }

  subscribe(sessionId: string, listener: (e: ChatEvent) => void): () => void {
    const session = this.require(sessionId);
    session.listeners.add(listener);
    return () => session.listeners.delete(listener);
  }

  /** Resolves when the session has no running turn (tests, shutdown). */
  async idle(sessionId: string): Promise<void> {
    while (this.sessions.get(sessionId)?.running) await new Promise((r) => setTimeout(r, 5));
  }

  private async runTurn(agent: ReactAgent, sessionId: string, turnId: string, message: string): Promise<void> {
    try {
      const outcome = await agent.run(message, { sessionId, turnId });
      // A control exit (cancel) ends the turn without a turn_completed agent event: the outcome has it.
      if (outcome.status === "finished" && !this.completed(sessionId, turnId)) this.publish(sessionId, turnId, completedEvent(outcome.result));
      if (outcome.status === "suspended") this.publish(sessionId, turnId, { type: "turn_failed", message: "the turn asked for an approval, which chat does not offer yet" });
    } catch (error) {
      this.publish(sessionId, turnId, { type: "turn_failed", message: error instanceof Error ? error.message : String(error) });
    } finally {
      const session = this.sessions.get(sessionId);
      if (session?.running === turnId) session.running = null;
      this.turnSession.delete(turnId);
    }
  }

  private completed(sessionId: string, turnId: string): boolean {
    return this.sessions.get(sessionId)?.events.some((e) => e.turnId === turnId && e.type === "turn_completed") ?? false;
  }

  private onAgentEvent(e: AgentEvent): void {
    const sessionId = this.turnSession.get(e.turnId);
    if (!sessionId) return;
    for (const body of toChatEvents(e)) this.publish(sessionId, e.turnId, body);
  }

  private publish(sessionId: string, turnId: string, body: ChatEventBody): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    const at = this.options.now?.() ?? Date.now();
    const event = { ...body, seq: ++this.seq, sessionId, turnId, at } as ChatEvent;
    session.events.push(event);
    session.updatedAt = at;
    for (const listener of session.listeners) listener(event);
  }

  private open(sessionId: string): Session {
    const session: Session = { events: [], turns: 0, running: null, updatedAt: Date.now(), listeners: new Set() };
    this.sessions.set(sessionId, session);
    return session;
  }

  private require(sessionId: string): Session {
    const session = this.sessions.get(sessionId);
    if (!session) throw notFound("chat", sessionId);
    return session;
  }
}

function toChatEvents(e: AgentEvent): ChatEventBody[] {
  switch (e.type) {
    case "llm_event": {
      const ev = e.event;
      if (ev.type === "text_delta") return [{ type: "text_delta", text: ev.text }];
      if (ev.type === "reasoning_delta") return [{ type: "reasoning_delta", text: ev.text }];
      if (ev.type === "tool_call_complete") return [{ type: "tool_call", callId: ev.call.id, name: ev.call.name, arguments: ev.call.arguments }];
      return [];
    }
    case "tool_result":
      return [{ type: "tool_result", callId: e.result.callId, name: e.result.name, content: e.result.content, isError: e.result.isError }];
    case "turn_completed":
      return [completedEvent(e.result)];
    case "approval_requested":
      return [];
  }
}

function completedEvent(result: AgentResult): ChatEventBody {
  return {
    type: "turn_completed",
    stopReason: result.stopReason,
    content: result.content,
    tokens: result.usage.inputTokens + result.usage.outputTokens,
    error: result.error?.message ?? null,
  };
}

function titleOf(session: Session): string {
  const first = session.events.find((e) => e.type === "user_message");
  const text = first && first.type === "user_message" ? first.text : "New chat";
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/** A session's events after `afterSeq`, then live until `signal` aborts. */
export function chatEventStream(chat: ChatService, sessionId: string, afterSeq: number, signal?: AbortSignal): AsyncGenerator<ChatEvent, void, undefined> {
  return liveStream({
    subscribe: (listener) => chat.subscribe(sessionId, listener),
    replay: (after) => chat.events(sessionId, after),
    keyOf: (e) => e.seq,
    after: afterSeq,
    signal,
  });
}
