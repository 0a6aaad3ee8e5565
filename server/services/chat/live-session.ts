import type { ApprovalResumer } from "@/server/agent/approval/approval-resumer";
import type { ReactAgent } from "@/server/agent/react/react-agent";
import { chain, type Awaitable } from "@/server/graph/awaitable";
import type { BusyInputMode } from "./chat-event";
import type { ChatApprovalRow, ChatInputRow, ChatSessionRow } from "./chat-store";

/** A chat loaded in this process: its agent, and the turn it runs. The row is what the store keeps. */
export interface LiveSession {
  row: ChatSessionRow;
  agent: ReactAgent;
  resumer: ApprovalResumer;
  busyInput: BusyInputMode;
  /** The approval the running turn is suspended on (with the turn's snapshot), if it is. */
  awaiting: ChatApprovalRow | null;
  /**
   * Messages to run as turns of their own once the running one ends (QUEUE, INTERRUPT), as this process
   * knows them: each is a waiting row of the store (ChatInputRow), and the store's list is what runs.
   */
  queue: ChatInputRow[];
  /** STEER messages not yet injected into the running turn (waiting rows too). */
  steer: ChatInputRow[];
  /** STEER messages handed to the turn's next model call, until they are told as injected. */
  steering: ChatInputRow[];
  /** Turns whose turn_completed the agent published itself. */
  completed: Set<string>;
  /** The running leg of the running turn: aborting it is path B (busy-input INTERRUPT). */
  leg: Leg | null;
  /** A turn's claim of the chat on its way (it may lose to another process's turn): a message sent here waits for it (ChatService.settled). */
  claiming: Promise<unknown> | null;
  deleted: boolean;
  /** Row changes this process made (changeRow): only the latest one's answer refreshes `row`. */
  changes: number;
}

/** The running leg of a turn: what an INTERRUPT (path B) needs to end it as the user saw it. */
export interface Leg {
  turnId: string;
  abort: AbortController;
  /** The user's message (null on a leg resumed after an approval: memory has it in the turn's snapshot). */
  input: string | null;
  streamed: string;
  reasoning: string;
  tools: string[];
  /**
   * Tokens of the model calls that finished in this leg; `callUsage`: the running call's, once it has one
   * (the interrupted call's is the client's estimate). `estimated`: some of them are an estimate.
   */
  inputTokens: number;
  outputTokens: number;
  estimated: boolean;
  callUsage: { inputTokens: number; outputTokens: number; estimated?: true } | null;
}

/** A leg of `turnId` that has streamed nothing yet (`input`: the user's message, null on a resumed leg). */
export function newLeg(turnId: string, input: string | null): Leg {
  return { turnId, abort: new AbortController(), input, streamed: "", reasoning: "", tools: [], inputTokens: 0, outputTokens: 0, estimated: false, callUsage: null };
}

/**
 * Changes the chat as this process sees it by `patch` at once, and in the store by `write`, which
 * writes only that change (so it never undoes what another process committed meanwhile). The row the
 * store answers, with every process's changes, becomes this process's view, unless a later change of
 * this process is on its way. Answers that row (null: the store changed nothing).
 */
export function changeRow(live: LiveSession, patch: Partial<ChatSessionRow>, write: () => Awaitable<ChatSessionRow | null>): Awaitable<ChatSessionRow | null> {
  live.row = { ...live.row, ...patch };
  if (live.deleted) return null;
  const change = ++live.changes;
  return chain(write(), (row) => {
    if (row && live.changes === change && !live.deleted) live.row = { ...row, agent: live.row.agent };
    return row;
  });
}

/** Both rows name the same running turn and the same approval it waits on (or none). */
export function sameTurn(a: ChatSessionRow, b: ChatSessionRow): boolean {
  return a.runningTurn === b.runningTurn && a.awaitingApproval === b.awaitingApproval;
}
