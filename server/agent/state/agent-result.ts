import type { StopReason } from "../stop-reason";
import type { TokenUsage } from "../llm/token-usage";

/** The outcome of one logical turn, built by AFTER (or by the control-exit handler). */
export interface AgentResult {
  stopReason: StopReason;
  content: string;
  /** ReAct iterations run in the final turn attempt. */
  iterations: number;
  turnAttempts: number;
  usage: TokenUsage;
  error?: { code: string; message: string };
}
