import type { InvocationStatus, NodeInvocation } from "@/server/graph/persistence/records";
import { type Database } from "./graph-database";
import { statement } from "./sqlite-statements";
import { holdPendingWrites, type PendingWrites } from "./deferred-transaction";
import { knownLedger, noteClaimed, noteConsumed, openSeqsUpTo } from "./known-ledgers";
import { noteInvocationStatus } from "./invocation-statuses";
import { claimSeqs, DELIVER_SQL } from "./sqlite-deliver-store";
import { INVOCATION_SQL } from "./sqlite-node-state-store";

/** A begun invocation whose rows are not written yet. */
interface PendingBegin {
  readonly invocation: NodeInvocation;
  /** Its row is in the table, written COMPLETED by `complete` (its claim is still held). */
  inserted: boolean;
  /** The highest seq among the consumable rows read at the begin, which its claim covers; null: none. */
  readonly claimUpTo: number | null;
}

/**
 * The begins of the open deferred transaction, kept in memory. A synchronous node begins, completes
 * and promotes its inputs within one transaction, so writing its invocation RUNNING and then
 * COMPLETED, and its inputs CONSUMED_PENDING and then CONSUMED_COMPLETED, costs two statements each
 * where one gives the same commit point. Whatever commits or writes before that (a node that awaits,
 * a cancel, another store's write) first writes them as the step-by-step coordinator would have.
 */
export class PendingBegins implements PendingWrites {
  private readonly byId = new Map<string, PendingBegin>();

  constructor(private readonly db: Database) {}

  /** Holds a begin not written yet, whose claim covers its node's consumable rows up to `claimUpTo`. */
  hold(invocation: NodeInvocation, claimUpTo: number | null): void {
    holdPendingWrites(this.db, this);
    this.byId.set(invocation.invocationId, { invocation, inserted: false, claimUpTo });
  }

  /**
   * Completes a held begin in one statement, the row written COMPLETED; false when the begin is not
   * held (already written), and the caller compare-and-swaps the written row.
   */
  complete(invocation: NodeInvocation, endedAt: number): boolean {
    const held = this.byId.get(invocation.invocationId);
    if (!held || held.inserted) return false;
    writeInvocation(this.db, invocation, "COMPLETED", endedAt, null);
    held.inserted = true;
    return true;
  }

  /**
   * Cancels or fails a held begin, written straight in that status with its claims (its inputs stay
   * claimed, consumable by a retry); false when the begin is not held or already written.
   */
  finish(invocation: NodeInvocation, to: "CANCELLED" | "FAILED", error: string): boolean {
    const held = this.byId.get(invocation.invocationId);
    if (!held || held.inserted) return false;
    this.byId.delete(invocation.invocationId);
    writeInvocation(this.db, invocation, to, Date.now(), error);
    if (held.claimUpTo !== null) claim(this.db, held, "CONSUMED_PENDING");
    return true;
  }

  /** True while a held begin has neither completed nor ended: a node that awaits, RUNNING. */
  holdsRunning(): boolean {
    for (const held of this.byId.values()) if (!held.inserted) return true;
    return false;
  }

  /** Promotes a held begin's inputs straight to CONSUMED_COMPLETED; false when it is not held. */
  promoteConsumed(invocation: NodeInvocation): boolean {
    const held = this.byId.get(invocation.invocationId);
    if (!held || !held.inserted) return false;
    this.byId.delete(invocation.invocationId);
    if (held.claimUpTo !== null) claim(this.db, held, "CONSUMED_COMPLETED");
    return true;
  }

  flush(): void {
    for (const held of this.byId.values()) {
      if (!held.inserted) writeInvocation(this.db, held.invocation, "RUNNING", null, null);
      if (held.claimUpTo !== null) claim(this.db, held, "CONSUMED_PENDING");
    }
    this.byId.clear();
  }

  discard(): void {
    this.byId.clear();
  }
}

function writeInvocation(db: Database, inv: NodeInvocation, status: InvocationStatus, endedAt: number | null, error: string | null): void {
  statement(db, INVOCATION_SQL.insertAs).run(
    inv.invocationId,
    inv.instanceId,
    inv.nodeId,
    inv.nodeName,
    inv.version,
    inv.parentVersion,
    status,
    inv.startedAt,
    endedAt,
    error,
  );
  noteInvocationStatus(db, inv.instanceId, inv.invocationId, status);
}

function claim(db: Database, held: PendingBegin, status: "CONSUMED_PENDING" | "CONSUMED_COMPLETED"): void {
  const { invocationId, instanceId, nodeId } = held.invocation;
  const upTo = held.claimUpTo!;
  const ledger = knownLedger(db, instanceId);
  if (!ledger) {
    statement(db, DELIVER_SQL.claimUpTo).run(status, invocationId, instanceId, instanceId, upTo, nodeId);
    return;
  }
  // By primary key, from the mirrored ledger (a chain's one input, a resumed node's two).
  const seqs = openSeqsUpTo(ledger, nodeId, upTo);
  if (seqs.length > 0) claimSeqs(db, instanceId, nodeId, seqs, status, invocationId);
  if (status === "CONSUMED_PENDING") noteClaimed(ledger, nodeId, upTo, invocationId);
  else noteConsumed(ledger, nodeId, { upTo });
}
