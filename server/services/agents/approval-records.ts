import type { GraphInstanceRecord } from "@/server/graph/persistence/records";

/** Attribute holding every decision on an agent node's tool call, oldest first (who, when, what). */
export const APPROVALS_ATTR = "agent_approvals";

export interface ApprovalRecord {
  node: string;
  transactionId: string;
  tool: string;
  args: unknown;
  approved: boolean;
  reason?: string;
  /** Who decided, as the API knows it: "session" (a browser), "token" (REST, CLI), or "unknown". */
  by: string;
  at: number;
  /** The instance version the decision resumed. */
  version: number;
}

export function approvalsOf(instance: GraphInstanceRecord): ApprovalRecord[] {
  const value = instance.attrs[APPROVALS_ATTR];
  return Array.isArray(value) ? (value as ApprovalRecord[]) : [];
}
