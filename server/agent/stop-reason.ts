/**
 * Why a turn ended. Every AgentResult carries exactly one; each AgentControlError subclass maps to one.
 */
export const StopReason = {
  COMPLETED: "completed",
  CANCELLED: "cancelled",
  TIMEOUT: "timeout",
  POLICY_VIOLATION: "policy_violation",
  LOOP_DETECTED: "loop_detected",
  MAX_ITERATIONS: "max_iterations",
  ERROR: "error",
} as const;

export type StopReason = (typeof StopReason)[keyof typeof StopReason];
