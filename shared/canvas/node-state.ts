/** What a node is doing in a run, as the instance view paints it. */
export type NodeRunState = "pending" | "running" | "completed" | "failed" | "cancelled" | "waiting" | "approval" | "interrupted";

export const NODE_STATE_LABEL: Record<NodeRunState, string> = {
  pending: "pending",
  running: "running",
  completed: "completed",
  failed: "failed",
  cancelled: "cancelled",
  waiting: "waiting for input",
  /** An agent node's tool call waits for Approve / Deny. */
  approval: "waiting for approval",
  /** Running when its process died; a recovery runs it again. */
  interrupted: "interrupted by a crash",
};
