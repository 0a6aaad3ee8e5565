import { isAgentApprovalRequest, type AgentApprovalRequest } from "@/server/agent/graph-node/agent-approval-request";
import type { GraphInstanceRecord } from "@/server/graph/persistence/records";
import { waitingFor } from "../waiting-for";

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
  /** A browser's sign-in session ref (answer-author.ts); absent for the API and for older records. */
  session?: string;
  at: number;
  /** The instance version the decision resumed. */
  version: number;
}

export function approvalsOf(instance: GraphInstanceRecord): ApprovalRecord[] {
  const value = instance.attrs[APPROVALS_ATTR];
  return Array.isArray(value) ? (value as ApprovalRecord[]) : [];
}

/** What the approval card shows: the request an agent node waits on (if any) and every decision so far. */
export function approvalStateOf(instance: GraphInstanceRecord): { waiting: AgentApprovalRequest | null; decided: ApprovalRecord[] } {
  const waiting = waitingFor(instance);
  return { waiting: isAgentApprovalRequest(waiting) ? waiting : null, decided: approvalsOf(instance) };
}
