import type { AgentResult } from "../state/agent-result";
import type { TurnState } from "../state/turn-state";
import type { LlmRequest, ToolCall } from "../llm/messages";
import type { LlmResponse } from "../llm/llm-response";
import type { StreamFailure } from "../llm/stream-events";
import type { TokenUsage } from "../llm/token-usage";
import type { ToolResult } from "../tools/tool-result";
import type { ApprovalDecision, ApprovalTransaction } from "../approval/approval-types";
import type { HookPoint } from "./hook-point";

/** What re-entered a turn: an approval decision, or its iteration checkpoint after a restart. */
export type ResumedFrom = "approval" | "checkpoint";

/** What each point tells its hooks, beside the turn state. */
export interface HookPayloads {
  /** `resumed` is true when the run re-enters a turn (`resumedFrom` says what re-entered it; null on a fresh run). */
  BEFORE_GRAPH: { input: string; resumed: boolean; resumedFrom: ResumedFrom | null };
  /** `result` is null on the suspend leg (approval pending) and on a crash (then `error` is set). */
  AFTER_GRAPH: { result: AgentResult | null; error?: unknown };
  FINALLY_GRAPH: { result: AgentResult | null; error?: unknown };
  START_NODE_TURN: { resumed: boolean };
  END_NODE_TURN: { result: AgentResult };
  BEFORE_TURN: { attempt: number };
  /** `result` is the preliminary result AFTER wrote to `turn.result`; hooks may rewrite it in place. */
  AFTER_TURN: { result: AgentResult };
  BEFORE_ITERATION: { iteration: number };
  AFTER_ITERATION: { iteration: number };
  BEFORE_TOOL_EXECUTION: { calls: ToolCall[] };
  AFTER_TOOL_EXECUTION: { calls: ToolCall[]; results: ToolResult[] };
  /** `response` is null when the stream failed (`failure` set; `usage`: the failed call's tokens, reported or estimated). */
  AFTER_LLM_RESPONSE: { response: LlmResponse | null; failure?: StreamFailure; usage?: TokenUsage };
  FINALIZE_CONTENT: { content: string };
  BEFORE_LLM: { request: LlmRequest };
  AFTER_APPROVAL: { transaction: ApprovalTransaction; decision: ApprovalDecision };
}

/**
 * The argument every hook method receives. `signal` fires when the runner gave up on the call (timeout)
 * or the turn is being torn down; a long-running hook should honour it.
 */
export type HookContext<P extends HookPoint> = {
  readonly point: P;
  readonly turn: TurnState;
  readonly signal: AbortSignal;
} & HookPayloads[P];
