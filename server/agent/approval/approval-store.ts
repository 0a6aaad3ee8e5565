import { AGENT_ERROR_CODES, AgentError } from "../errors";
import { ApprovalTransactionSchema, type ApprovalTransaction } from "./approval-types";

/** Where approval transactions are persisted while a turn is suspended. */
export interface ApprovalStore {
  save(transaction: ApprovalTransaction): Promise<void>;
  get(id: string): Promise<ApprovalTransaction | undefined>;
  /** Pending transactions of a session, oldest first (what an approval card lists). */
  pending(sessionId: string): Promise<ApprovalTransaction[]>;
}

export class InMemoryApprovalStore implements ApprovalStore {
  private readonly rows = new Map<string, ApprovalTransaction>();

  async save(transaction: ApprovalTransaction): Promise<void> {
    const parsed = ApprovalTransactionSchema.parse(transaction);
    this.rows.set(parsed.id, structuredClone(parsed));
  }

  async get(id: string): Promise<ApprovalTransaction | undefined> {
    const row = this.rows.get(id);
    return row && structuredClone(row);
  }

  async pending(sessionId: string): Promise<ApprovalTransaction[]> {
    return [...this.rows.values()]
      .filter((t) => t.sessionId === sessionId && t.status === "pending")
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((t) => structuredClone(t));
  }
}

export function approvalNotFound(id: string): AgentError {
  return new AgentError(AGENT_ERROR_CODES.INVALID_STATE, `no approval transaction ${id}`);
}
