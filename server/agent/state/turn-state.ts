import type { AgentResult } from "./agent-result";
import type { ChatMessage, ToolCall } from "../llm/messages";
import type { LlmResponse } from "../llm/llm-response";
import { ZERO_USAGE, type TokenUsage } from "../llm/token-usage";
import type { ToolResult } from "../tools/tool-result";
import type { ApprovalTransaction } from "../approval/approval-types";
import { TurnCustomMap } from "./turn-custom";

/**
 * The state of one ReAct turn. It is the graph state the six ReAct nodes share, and what hooks read and
 * (lightly) modify. Per-turn hook state goes in `custom`.
 */
export interface TurnState {
  readonly sessionId: string;
  readonly turnId: string;
  /** Epoch ms the turn started (control commands sent earlier without a turn id are stale). */
  readonly startedAt: number;
  /** The conversation, oldest first; the LLM node sends it as the prompt. */
  messages: ChatMessage[];
  custom: TurnCustomMap;
  /** 1-based after BEFORE ran; incremented on each continuation. */
  turnAttempt: number;
  /** ReAct iterations in the current attempt (reset by BEFORE). */
  iteration: number;
  /** Business iteration limit; LLM routes to AFTER with MAX_ITERATIONS when reached. */
  maxIterations: number;
  /** Turn attempts allowed (continuation budget). */
  maxTurns: number;
  usage: TokenUsage;
  /** Tool calls from the last LLM response still to execute, in order. */
  pendingToolCalls: ToolCall[];
  lastResponse?: LlmResponse;
  /** Set by LLM/TOOL when the attempt ends in a failure, read by AFTER. */
  failure?: { code: string; message: string; node?: string };
  /** Set by LLM when the business iteration limit stopped the attempt. */
  iterationLimitHit?: boolean;
  /** The calls of the current tool batch (the last response's tool calls). */
  toolBatchCalls: ToolCall[];
  /** Results of the current tool batch so far (kept across an approval suspend). */
  toolBatchResults: ToolResult[];
  /** The approval the TOOL node suspended on, if any. */
  pendingApproval?: ApprovalTransaction;
  /** Set by AFTER, read by END and the agent. (The engine's own `result` is its GraphPayload list.) */
  agentResult?: AgentResult;
}

export interface TurnStateInit {
  sessionId: string;
  turnId: string;
  messages?: ChatMessage[];
  maxIterations?: number;
  maxTurns?: number;
  startedAt?: number;
}

export const DEFAULT_MAX_ITERATIONS = 25;
/** The framework default turn budget; graph-node turns use GRAPH_NODE_MAX_TURNS. */
export const DEFAULT_MAX_TURNS = 1;
export const GRAPH_NODE_MAX_TURNS = 3;

export function createTurnState(init: TurnStateInit): TurnState {
  return {
    sessionId: init.sessionId,
    turnId: init.turnId,
    startedAt: init.startedAt ?? Date.now(),
    messages: [...(init.messages ?? [])],
    custom: new TurnCustomMap(),
    turnAttempt: 0,
    iteration: 0,
    maxIterations: init.maxIterations ?? DEFAULT_MAX_ITERATIONS,
    maxTurns: init.maxTurns ?? DEFAULT_MAX_TURNS,
    usage: { ...ZERO_USAGE },
    pendingToolCalls: [],
    toolBatchCalls: [],
    toolBatchResults: [],
  };
}
