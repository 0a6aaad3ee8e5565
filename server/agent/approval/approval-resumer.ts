import { AGENT_ERROR_CODES, AgentError } from "../errors";
import type { AgentRunOutcome, ReactAgent } from "../react/react-agent";
import { restoreTurn } from "./turn-snapshot";
import { ApprovalDecisionSchema, type ApprovalDecision } from "./approval-types";

export interface ApplyResumeOptions {
  signal?: AbortSignal;
  /**
   * The leg this decision resumed was cut (its process died, or a pause cancelled it) before it left a
   * checkpoint: a transaction already decided the same way is applied again, from the same snapshot, so
   * the approved call runs again (at least once, as any tool cut mid-way). Only a caller that knows the
   * leg did not finish may say so (an agent node whose decision's row was re-offered).
   */
  again?: boolean;
}

/**
 * The one entry for approval decisions (WebUI and IM both end here; never the control channel, never an
 * interceptor). Validates the decision against the pending transaction, records it, restores the
 * suspended turn from its snapshot, dispatches AFTER_APPROVAL, and re-enters the agent at TOOL.
 */
export class ApprovalResumer {
  constructor(
    private readonly agent: ReactAgent,
    private readonly now: () => number = Date.now,
  ) {}

  async applyResume(input: ApprovalDecision, options: ApplyResumeOptions = {}): Promise<AgentRunOutcome> {
    const decision = ApprovalDecisionSchema.parse(input);
    const transaction = await this.agent.approvals.get(decision.transactionId);
    if (!transaction) throw invalid(`no approval transaction ${decision.transactionId}`);
    const again = options.again === true && transaction.status === (decision.approved ? "approved" : "denied");
    if (transaction.status !== "pending" && !again) throw invalid(`approval ${transaction.id} was already ${transaction.status}`);
    const snapshot = await this.agent.snapshots.load(transaction.turnId);
    if (!snapshot || snapshot.turn.pendingApproval?.id !== transaction.id) {
      throw invalid(`no suspended turn waits on approval ${transaction.id}`);
    }
    const decided = again
      ? transaction
      : {
          ...transaction,
          status: decision.approved ? ("approved" as const) : ("denied" as const),
          ...(decision.reason ? { reason: decision.reason } : {}),
          decidedAt: this.now(),
        };
    if (!again) await this.agent.approvals.save(decided);
    const turn = restoreTurn(snapshot);
    await this.agent.hooks.dispatch("AFTER_APPROVAL", turn, { transaction: decided, decision }, { signal: options.signal });
    return this.agent.resumeTurn({ turn, resumeTarget: snapshot.resumeTarget, decision, signal: options.signal });
  }
}

function invalid(message: string): AgentError {
  return new AgentError(AGENT_ERROR_CODES.INVALID_STATE, message);
}
