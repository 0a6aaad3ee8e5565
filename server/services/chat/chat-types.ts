import type { Awaitable } from "@/server/graph/awaitable";
import type { ReactAgent } from "@/server/agent/react/react-agent";
import type { TokenUsage } from "@/server/agent/llm/token-usage";
import type { ChatAgentRuntime } from "../agents/agent-assembly";
import type { BusyInputMode } from "./chat-event";

export interface ChatSessionSummary {
  sessionId: string;
  title: string;
  /** The named agent this chat talks to (null: the built-in assistant). */
  agent: string | null;
  turns: number;
  running: boolean;
  /** The running turn is suspended, waiting for an approval decision. */
  awaitingApproval: boolean;
  /** What a message sent while a turn runs does (the agent's busy-input mode). */
  busyInput: BusyInputMode;
  /** Messages waiting for the running turn to end. */
  queued: number;
  updatedAt: number;
}

export interface ChatDecision {
  transactionId: string;
  approved: boolean;
  decidedAt: number;
}

/** What `send` did with the input: a turn started, a busy-input mode applied, or a command ran. */
export type SendOutcome =
  | { sessionId: string; turnId: string; handled: "started" }
  | { sessionId: string; turnId: string; handled: "queued" | "steered" | "interrupted"; mode: BusyInputMode }
  /** `sessionId` is "" for a command sent outside a chat (`/help` on a new chat, say). */
  | { sessionId: string; turnId: null; handled: "command"; command: string; ok: boolean; message: string };

/** Where the chat's agents come from: named definitions, built by the one assembly (agent-assembly.ts). */
export interface ChatAgentSource {
  /** The agent a new chat talks to when it names none (null: the built-in assistant). */
  defaultAgent(): string | null;
  /** Builds the agent `name` (null: the default); throws NOT_FOUND for an unknown name. */
  build(name: string | null, runtime: ChatAgentRuntime): { name: string | null; agent: ReactAgent };
  /** The agent's busy-input mode (default QUEUE). */
  busyInput?(name: string | null): BusyInputMode | undefined;
  /** The model the agent's calls go to (to price its turns); null when unknown. */
  modelOf?(name: string | null): string | null;
}

/** Prices a turn's tokens on a model (the app's model price table); null: no price for it. */
export interface TurnPricing {
  currency: string | null;
  costOf(model: string | null, usage: TokenUsage): number | null;
}

/**
 * A ChatService in a process of a PostgreSQL cluster. Other processes share the chats: their running
 * turns are not orphans at start (the cluster's reaper ends those whose owner died, `endOrphanedTurn`);
 * every turn this process runs is stored with `owner` (its executor id, whose heartbeat the cluster
 * keeps); subscribers hear every process's events from the cluster's feed (`deliver`), not from this
 * process's writes, so they arrive once and in order whoever wrote them; a chat loaded here and idle is
 * read again from the store when used.
 */
export interface ChatClusterOptions {
  owner: string;
}

/**
 * A stop, STEER or INTERRUPT for a turn another process runs; `seq`: the busy_input event the message
 * is, `inputId`: its waiting row (ChatInputRow), stored by the sender.
 */
export type RelayedTurnRequest = { kind: "cancel"; sessionId: string; turnId: string } | { kind: "busy"; sessionId: string; turnId: string; seq: number; inputId: string };

/** Delivers a RelayedTurnRequest to the process `owner` (server/cluster/chat-turn-relay.ts). */
export interface ChatTurnRelay {
  /**
   * The owner's answer (its `applyRelayed`), or "gone" when it is dead for the cluster (its turns were
   * ended as a restart ends them first). Throws PEER_UNAVAILABLE when a live owner does not answer in time.
   */
  ask(owner: string, request: RelayedTurnRequest): Promise<{ applied: boolean } | "gone">;
}

/** Files a chat's turns leave beside the database (oversized tool results), deleted with the chat. */
export interface ChatFiles {
  remove(sessionId: string): Awaitable<void>;
}
