import type { ApprovalTransaction } from "../approval/approval-types";
import type { LLMStreamEvent } from "../llm/stream-events";
import type { AgentResult } from "../state/agent-result";
import type { ToolResult } from "../tools/tool-result";
import type { ContextSummary } from "../memory/context-summary";

/** What a running agent reports as it goes (for live display); observation only. */
export type AgentEvent =
  | { type: "llm_event"; turnId: string; event: LLMStreamEvent; attempt?: number; iteration?: number }
  | { type: "tool_result"; turnId: string; result: ToolResult }
  | { type: "approval_requested"; turnId: string; transaction: ApprovalTransaction }
  | { type: "turn_completed"; turnId: string; result: AgentResult }
  /** A memory cleanup summarized older messages before a model call (the summary is stored already). */
  | { type: "context_summarized"; turnId: string; summary: ContextSummary };
