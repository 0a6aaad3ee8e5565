import { ApprovalResumer } from "@/server/agent/approval/approval-resumer";
import type { ApprovalTransaction } from "@/server/agent/approval/approval-types";
import { InMemoryControlChannel } from "@/server/agent/control/in-memory-control-channel";
import type { LlmProvider } from "@/server/agent/llm/llm-provider";
import type { AgentEvent } from "@/server/agent/react/agent-events";
import { type AgentRunOutcome, ReactAgent } from "@/server/agent/react/react-agent";
import type { AgentResult } from "@/server/agent/state/agent-result";
import { InMemorySessionMemory } from "@/server/agent/react/session-memory";
import { InMemoryTodoStore } from "@/server/agent/tools/builtin/todo-store";
import { todoWriteTool } from "@/server/agent/tools/builtin/todo-write-tool";
import type { Tool } from "@/server/agent/tools/tool";
import { newSnowflake } from "@/server/graph/ids";
import { NO_MODEL_MESSAGE } from "./agents/model-providers";
import type { ChatAgentRuntime } from "./agents/agent-assembly";
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
  /** The turn suspended before a tool call that needs approval; it waits for `decide`. */
  | { type: "approval_requested"; transactionId: string; callId: string; name: string; arguments: string }
  /** `by` names who decided ("you": the person in this chat); `at` is when. */
  | { type: "approval_decided"; transactionId: string; callId: string; approved: boolean; reason: string | null; by: string }
);

type ChatEventBody = DistributiveOmit<ChatEvent, "seq" | "sessionId" | "turnId" | "at">;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface ChatSessionSummary {
  sessionId: string;
  title: string;
  /** The named agent this chat talks to (null: the built-in assistant). */
  agent: string | null;
  turns: number;
  running: boolean;
  /** The running turn is suspended, waiting for an approval decision. */
  awaitingApproval: boolean;
  updatedAt: number;
}

export interface ChatDecision {
  transactionId: string;
  approved: boolean;
  decidedAt: number;
}

/** Where the chat's agents come from: named definitions, built by the one assembly (agent-assembly.ts). */
export interface ChatAgentSource {
  /** The agent a new chat talks to when it names none (null: the built-in assistant). */
  defaultAgent(): string | null;
  /** Builds the agent `name` (null: the default); throws NOT_FOUND for an unknown name. */
  build(name: string | null, runtime: ChatAgentRuntime): { name: string | null; agent: ReactAgent };
}

interface Session {
  /** The agent of this chat, fixed when it starts: its approvals resume on the same instance. */
  agentName: string | null;
  agent: ReactAgent;
  resumer: ApprovalResumer;
  events: ChatEvent[];
  turns: number;
  /** The turn in progress, suspended ones included: one at a time per chat. */
  running: string | null;
  /** The approval the running turn is suspended on, if it is. */
  awaiting: ApprovalTransaction | null;
  /** Every approval asked in this chat and what became of it (the chat's own record, checked synchronously). */
  approvals: Map<string, "pending" | "approved" | "denied">;
  updatedAt: number;
  listeners: Set<(e: ChatEvent) => void>;
}

/** Who decides in the chat view: the person at the browser (a session of the app; there is one user). */
const DECIDED_BY = "you";

export const CHAT_SYSTEM_PROMPT =
  "You are the assistant of Modex, a system for building, running and watching agent workflows as graphs. Answer clearly and briefly; use your todo list for multi-step work. " +
  "You can list the saved graphs, start a run of one (the user approves each run first) and look up an instance's status.";

/**
 * Chat with a ReAct agent, one conversation per session: each message is one agent turn whose LLM
 * stream, tool calls and result are published as ChatEvents (kept in memory for the session's
 * transcript; a restart forgets them). Stop cancels the turn through the control plane (CANCEL_TURN).
 * A turn that reaches a tool needing approval suspends (the agent runtime persists the transaction and
 * a TurnSnapshot): the chat publishes `approval_requested` and keeps the turn as the running one until
 * `decide` resumes it through the ApprovalResumer, at TOOL, without asking the model again.
 */
export class ChatService {
  private readonly sessions = new Map<string, Session>();
  private readonly turnSession = new Map<string, string>();
  private readonly channel = new InMemoryControlChannel();
  private readonly memory = new InMemorySessionMemory();
  private readonly source: ChatAgentSource | null;
  private seq = 0;

  constructor(
    private readonly options: {
      /** The model's label; null when there is none (the chat then says what to set). */
      model: string | null;
      /** Named agents (the app). */
      agents?: ChatAgentSource | null;
      /** Or one inline agent on this provider (tests): `todo_write` plus `tools`. */
      provider?: LlmProvider | null;
      tools?: readonly Tool[];
      now?: () => number;
    },
  ) {
    this.source = options.agents ?? (options.provider ? inlineSource(options.provider, options.tools ?? []) : null);
  }

  status(): { configured: boolean; model: string | null; message: string | null; defaultAgent: string | null } {
    const configured = this.source !== null && this.options.model !== null;
    return { configured, model: this.options.model, message: configured ? null : NO_MODEL_MESSAGE, defaultAgent: this.source?.defaultAgent() ?? null };
  }

  list(): ChatSessionSummary[] {
    return [...this.sessions.entries()]
      .map(([sessionId, s]) => ({
        sessionId,
        title: titleOf(s),
        agent: s.agentName,
        turns: s.turns,
        running: s.running !== null,
        awaitingApproval: s.awaiting !== null,
        updatedAt: s.updatedAt,
      }))
      .sort((a, b) => b.updatedAt - a.updatedAt);
  }

  /** Starts a turn (a new session without `sessionId`); answers at once with the ids to follow. */
  send(args: { sessionId?: string; message: string; agent?: string }): { sessionId: string; turnId: string } {
    if (!this.status().configured) throw new ServiceError("INVALID_STATE", NO_MODEL_MESSAGE);
    const sessionId = args.sessionId ?? newSnowflake();
    const session = args.sessionId ? this.require(args.sessionId) : this.open(sessionId, args.agent ?? null);
    if (session.awaiting) throw new ServiceError("INVALID_STATE", "the turn waits for your approval: approve or deny it first");
    if (session.running) throw new ServiceError("INVALID_STATE", "a turn is already running in this chat: wait for it, or stop it");
    const turnId = newSnowflake();
    session.running = turnId;
    session.turns++;
    this.publish(sessionId, turnId, { type: "user_message", text: args.message });
    const agent = session.agent;
    void this.drive(sessionId, turnId, () => agent.run(args.message, { sessionId, turnId }));
    return { sessionId, turnId };
  }

  /**
   * Decides the approval a suspended turn waits on, then resumes the turn in the background: approved,
   * the tool runs and the turn streams on; denied, the model reads the denial (and the reason) and goes
   * on. Publishes `approval_decided` before the turn resumes. Errors: NOT_FOUND for an unknown chat or
   * transaction, INVALID_STATE when it was already decided or no turn is suspended on it.
   */
  decide(args: { sessionId: string; transactionId: string; approved: boolean; reason?: string }): ChatDecision {
    const session = this.require(args.sessionId);
    const resumer = session.resumer;
    const status = session.approvals.get(args.transactionId);
    if (!status) throw notFound("approval", args.transactionId);
    if (status !== "pending") throw new ServiceError("INVALID_STATE", `approval ${args.transactionId} was already ${status}`);
    const awaiting = session.awaiting;
    if (!awaiting || awaiting.id !== args.transactionId) {
      throw new ServiceError("INVALID_STATE", `no turn of this chat is suspended on approval ${args.transactionId}`);
    }
    const reason = args.reason?.trim() || null;
    session.approvals.set(awaiting.id, args.approved ? "approved" : "denied");
    session.awaiting = null;
    const decidedAt = this.now();
    const decided = { type: "approval_decided", transactionId: awaiting.id, callId: awaiting.call.id, approved: args.approved, reason, by: DECIDED_BY } as const;
    this.publish(args.sessionId, awaiting.turnId, decided, decidedAt);
    const decision = { transactionId: awaiting.id, approved: args.approved, ...(reason ? { reason } : {}) };
    void this.drive(args.sessionId, awaiting.turnId, () => resumer.applyResume(decision));
    return { transactionId: awaiting.id, approved: args.approved, decidedAt };
  }

  /** Cancels the running turn of a session (the agent ends it with stopReason "cancelled"). */
  cancel(sessionId: string): { cancelled: boolean } {
    const session = this.require(sessionId);
    // A suspended turn runs nothing to cancel: it ends when its approval is decided (deny to refuse).
    if (!session.running || session.awaiting) return { cancelled: false };
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

  /**
   * Runs one leg of a turn (the first, or one resumed after a decision) and settles its outcome: a
   * finished turn frees the chat; a suspended one stays the running turn, awaiting a decision. The
   * approval is announced from the outcome (after the agent's exit hooks), so a decision can never
   * resume the turn while its suspending leg is still unwinding.
   */
  private async drive(sessionId: string, turnId: string, leg: () => Promise<AgentRunOutcome>): Promise<void> {
    let suspended = false;
    this.turnSession.set(turnId, sessionId);
    try {
      const outcome = await leg();
      if (outcome.status === "suspended") {
        suspended = this.suspend(sessionId, outcome.transaction);
      } else if (!this.completed(sessionId, turnId)) {
        // A control exit (cancel) ends the turn without a turn_completed agent event: the outcome has it.
        this.publish(sessionId, turnId, completedEvent(outcome.result));
      }
    } catch (error) {
      this.publish(sessionId, turnId, { type: "turn_failed", message: error instanceof Error ? error.message : String(error) });
    } finally {
      if (!suspended) {
        const session = this.sessions.get(sessionId);
        if (session?.running === turnId) session.running = null;
      }
      this.turnSession.delete(turnId);
    }
  }

  private suspend(sessionId: string, transaction: ApprovalTransaction): boolean {
    const session = this.sessions.get(sessionId);
    if (!session) return false;
    session.awaiting = transaction;
    session.approvals.set(transaction.id, "pending");
    const { call } = transaction;
    this.publish(sessionId, transaction.turnId, { type: "approval_requested", transactionId: transaction.id, callId: call.id, name: call.name, arguments: call.arguments });
    return true;
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private completed(sessionId: string, turnId: string): boolean {
    return this.sessions.get(sessionId)?.events.some((e) => e.turnId === turnId && e.type === "turn_completed") ?? false;
  }

  private onAgentEvent(e: AgentEvent): void {
    const sessionId = this.turnSession.get(e.turnId);
    if (!sessionId) return;
    for (const body of toChatEvents(e)) this.publish(sessionId, e.turnId, body);
  }

  private publish(sessionId: string, turnId: string, body: ChatEventBody, at = this.now()): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    const event = { ...body, seq: ++this.seq, sessionId, turnId, at } as ChatEvent;
    session.events.push(event);
    session.updatedAt = at;
    for (const listener of session.listeners) listener(event);
  }

  private open(sessionId: string, agentName: string | null): Session {
    if (!this.source) throw new ServiceError("INVALID_STATE", NO_MODEL_MESSAGE);
    const runtime = { channel: this.channel, memory: this.memory, onEvent: (e: AgentEvent) => this.onAgentEvent(e), now: () => this.now() };
    const { name, agent } = this.source.build(agentName, runtime);
    const resumer = new ApprovalResumer(agent, () => this.now());
    const session: Session = { agentName: name, agent, resumer, events: [], turns: 0, running: null, awaiting: null, approvals: new Map(), updatedAt: this.now(), listeners: new Set() };
    this.sessions.set(sessionId, session);
    return session;
  }

  private require(sessionId: string): Session {
    const session = this.sessions.get(sessionId);
    if (!session) throw notFound("chat", sessionId);
    return session;
  }
}

/** One agent on one provider, without definitions (tests, and the app's fallback when none is named). */
function inlineSource(provider: LlmProvider, tools: readonly Tool[]): ChatAgentSource {
  const todos = new InMemoryTodoStore();
  return {
    defaultAgent: () => null,
    build: (name, runtime) => {
      if (name !== null) throw notFound("agent", name);
      return { name: null, agent: new ReactAgent({ provider, tools: [todoWriteTool(todos), ...tools], systemPrompt: CHAT_SYSTEM_PROMPT, ...runtime }) };
    },
  };
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
      return []; // published from the run's outcome instead (see ChatService.drive)
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
