import type { ReactAgent } from "@/server/agent/react/react-agent";
import { notFound, ServiceError } from "../errors";
import { decidedEvent } from "./chat-agent-events";
import { detach, type ChatPublisher } from "./chat-publisher";
import type { ChatSessions } from "./chat-sessions";
import type { ChatApprovalRow, ChatStore } from "./chat-store";
import type { ChatTurns } from "./chat-turns";
import type { ChatDecision } from "./chat-types";
import { changeRow } from "./live-session";

/** A decision on the approval a chat's suspended turn waits on. */
export interface DecideArgs {
  sessionId: string;
  transactionId: string;
  approved: boolean;
  reason?: string;
}

/**
 * Decides the approval a suspended turn waits on, then resumes the turn in the background: approved,
 * the tool runs and the turn streams on; denied, the model reads the denial (and the reason) and goes
 * on. Publishes `approval_decided` (committed) before the turn resumes. Works after a restart: the
 * transaction and the turn's snapshot come from the store. Errors: NOT_FOUND for an unknown chat or
 * transaction, INVALID_STATE when it was already decided or no turn is suspended on it.
 */
export async function decideApproval(
  deps: { sessions: ChatSessions; store: ChatStore; publisher: ChatPublisher; turns: ChatTurns; owner: string | null; now: () => number },
  args: DecideArgs,
): Promise<ChatDecision> {
  const { sessions, store, publisher, turns, owner } = deps;
  const live = await sessions.require(args.sessionId);
  const stored = await store.approval(args.transactionId);
  if (!stored || stored.transaction.sessionId !== args.sessionId) throw notFound("approval", args.transactionId);
  if (stored.transaction.status !== "pending") throw new ServiceError("INVALID_STATE", `approval ${args.transactionId} was already ${stored.transaction.status}`);
  const awaiting = live.awaiting;
  if (!awaiting || awaiting.transaction.id !== args.transactionId || !awaiting.snapshot) {
    throw new ServiceError("INVALID_STATE", `no turn of this chat is suspended on approval ${args.transactionId}`);
  }
  await primeAgent(live.agent, awaiting);
  if (live.awaiting !== awaiting) throw new ServiceError("INVALID_STATE", `approval ${args.transactionId} was decided meanwhile`);
  const reason = args.reason?.trim() || null;
  const decidedAt = deps.now();
  const { transaction } = awaiting;
  live.awaiting = null;
  await publisher.atomically(() => {
    store.saveApproval({ transaction: { ...transaction, status: args.approved ? "approved" : "denied", ...(reason ? { reason } : {}), decidedAt }, snapshot: null });
    // The turn resumes in this process: it is its owner now.
    detach(changeRow(live, { awaitingApproval: null, turnOwner: owner }, () => store.resumeTurn(live.row.sessionId, transaction.turnId, owner)));
    publisher.publish(live, transaction.turnId, decidedEvent(transaction, args.approved, reason), decidedAt);
  });
  const decision = { transactionId: transaction.id, approved: args.approved, ...(reason ? { reason } : {}) };
  void turns.drive(live, turns.openLeg(live, transaction.turnId, null), (signal) => live.resumer.applyResume(decision, { signal }));
  return { transactionId: transaction.id, approved: args.approved, decidedAt };
}

/** After a restart the agent's own stores are empty: give it the transaction and snapshot the chat kept. */
async function primeAgent(agent: ReactAgent, awaiting: ChatApprovalRow): Promise<void> {
  const { transaction, snapshot } = awaiting;
  if (!(await agent.approvals.get(transaction.id))) await agent.approvals.save(transaction);
  if (snapshot && !(await agent.snapshots.load(transaction.turnId))) await agent.snapshots.save(snapshot);
}
