import {
  GraphPersistenceCoordinator,
  type CoordinatorFactory,
  type OpenedInvocation,
  type RecoveryScan,
} from "@/server/graph/persistence/coordinator";
import { deliverRow, type DeliverRow, type NewDeliverRow, type NodeInvocation } from "@/server/graph/persistence/records";
import { START } from "@/server/graph/names";
import { type Database } from "./graph-database";
import { statement, toJson } from "./sqlite-statements";
import { abortDeferred, beginDeferred, checkDeferredAfterError, commitDeferred, commitWith, commitWithNextStatus, deferredEpoch } from "./deferred-transaction";
import { isStorageError } from "./storage-errors";
import { claimedSeqs, forgetLedger, knownLedger, noteConsumed } from "./known-ledgers";
import { PendingBegins } from "./pending-begins";
import { assertUnfenced, fencedRuns, isRunFenced } from "./run-fence";
import { DELIVER_SQL, insertDeliverRows, ledgerToRun, promoteSeqs, readConsumable, SqliteDeliverStore } from "./sqlite-deliver-store";
import { noteCompleted } from "./invocation-chains";
import { knownUnfinishedStatus, noteInvocationStatus } from "./invocation-statuses";
import { SqliteGraphInstanceStore } from "./sqlite-instance-store";
import { saveSnapshot } from "./state-snapshots";
import {
  finishInvocation,
  INVOCATION_SQL,
  insertInvocation,
  lostInvocationRace,
  planInvocation,
  SqliteNodeStateStore,
} from "./sqlite-node-state-store";

/**
 * Whether a node's completion must be durable before its successors start, so a crash in a successor
 * never re-runs it. START need not be: it only re-delivers the instance's input (or the resume value)
 * and has no effects to repeat, so a new or resumed instance, START and the first node commit as one,
 * and a crash before that commit leaves the instance as nobody has yet been told it is (absent, or
 * still paused). Two commits fewer per interrupt + resume cycle.
 */
const commitsBeforeSuccessors = (nodeName: string): boolean => nodeName !== START;

interface OpenArgs {
  instanceId: string;
  nodeId: string;
  nodeName: string;
}

/**
 * The durable coordinator: lifecycle steps are prepared statements inside SQLite transactions, a node
 * invocation is committed before its successor starts, and a crash leaves only the windows `recover()`
 * closes. Observable ledger states are those of the base coordinator:
 * - openInvocation: begin RUNNING + read the consumable rows + claim them (→ CONSUMED_PENDING);
 * - completeInvocation: compare-and-swap RUNNING → COMPLETED + write the outbox + save the shared state.
 *   The outbox is written straight as PENDING: STAGED rows of a completed invocation are never visible
 *   outside the transaction, which is what staging-then-promoting would leave after commit;
 * - promoteConsumed: the claimed inputs become CONSUMED_COMPLETED (one statement).
 * A begin's writes wait in memory (`PendingBegins`) for the rest of its transaction: a node that
 * completes and promotes within it is written once, COMPLETED with its inputs CONSUMED_COMPLETED, the
 * commit point the steps above reach; anything that commits or writes earlier writes the begin first.
 * Commits are grouped (see `beginDeferred`): steps are committed at the end of the synchronous stretch
 * they run in (the next microtask), and a node whose inputs come from a completion not yet committed
 * commits it before it starts. A chain costs one commit per node; a synchronous fan-out one commit for
 * all its branches. START is the exception (`commitsBeforeSuccessors`): it commits with its first
 * successor. A node cancelled or failed in the stretch it began in (an interrupt) commits with the
 * instance's status change that follows (the pause). Steps return synchronously: the engine's hot path
 * awaits no promise.
 */
export class SqliteCoordinator extends GraphPersistenceCoordinator {
  declare readonly instances: SqliteGraphInstanceStore;
  declare readonly nodes: SqliteNodeStateStore;
  declare readonly delivers: SqliteDeliverStore;
  private readonly recoverTx: (instanceId: string) => RecoveryScan;
  /** Invocations whose completion (and outbox) is written but not yet committed, as of `unsettledEpoch`. */
  private readonly unsettled = new Set<string>();
  private readonly begins: PendingBegins;
  private unsettledEpoch = -1;
  /** Runs refused further writes after a storage failure (see run-fence.ts). */
  private readonly fenced: ReadonlySet<string>;

  constructor(readonly db: Database) {
    super(new SqliteGraphInstanceStore(db), new SqliteNodeStateStore(db), new SqliteDeliverStore(db));
    this.fenced = fencedRuns(db);
    this.begins = new PendingBegins(db);
    const recover = db.transaction((instanceId: string) => recoverStep(this, instanceId, true)!);
    this.recoverTx = (instanceId) => recover.immediate(instanceId);
  }

  /**
   * Deferred: committed with the next commit, at the latest the next microtask. A node whose inputs
   * come from a completion not yet committed commits it first: every invocation is committed before
   * its successors start.
   */
  override openInvocation(args: OpenArgs): OpenedInvocation {
    assertUnfenced(this.fenced, args.instanceId);
    const owned = beginDeferred(this.db, commitsBeforeSuccessors(args.nodeName));
    try {
      // Held in memory only in a deferred transaction of our own, which writes it before it commits.
      const invocation = owned ? planInvocation(this.db, args) : insertInvocation(this.db, args);
      // The run's first begin loads the mirrored ledger, which its later begins read.
      if (owned) ledgerToRun(this.db, args.instanceId);
      const { rows: inputs, upTo } = readConsumable(this.db, args.instanceId, args.nodeId);
      if (owned && this.readsUnsettled(inputs)) {
        commitDeferred(this.db);
        beginDeferred(this.db, true);
      }
      if (owned) this.begins.hold(invocation, upTo);
      else if (upTo !== null) {
        statement(this.db, DELIVER_SQL.claimAll).run(invocation.invocationId, args.instanceId, args.instanceId, args.nodeId);
        forgetLedger(this.db, args.instanceId);
      }
      return { invocation, inputs };
    } catch (error) {
      if (owned) {
        // The rollback also drops earlier deferred steps, state saves among them.
        abortDeferred(this.db, error);
        this.instances.forgetStates();
      }
      throw error;
    }
  }

  /**
   * Compare-and-swap RUNNING → COMPLETED, save the state, write the outbox. Committed with the deferred
   * steps at the end of the current synchronous stretch (the next microtask), or earlier when a
   * successor opens: completions of sibling nodes that run in one stretch (a synchronous fan-out)
   * share one commit. A lost race writes nothing; any other failure rolls back to the last commit, as a
   * crash would.
   */
  override completeInvocation(invocation: NodeInvocation, outbox: readonly NewDeliverRow[], state?: unknown): DeliverRow[] {
    assertUnfenced(this.fenced, invocation.instanceId);
    const db = this.db;
    const contents = outbox.map((r) => toJson(r.content));
    const stateJson = state === undefined ? undefined : toJson(state);
    const owned = beginDeferred(db, commitsBeforeSuccessors(invocation.nodeName));
    let written = false;
    try {
      const id = invocation.invocationId;
      const endedAt = Date.now();
      if (!this.begins.complete(invocation, endedAt) && statement(db, INVOCATION_SQL.complete).run(endedAt, id).changes === 0) {
        lostInvocationRace(db, id);
      }
      written = true;
      noteCompleted(db, invocation);
      noteInvocationStatus(db, invocation.instanceId, id, "COMPLETED");
      // A state this invocation changed is also kept as of it: the state at any point of the run.
      if (stateJson !== undefined && this.instances.saveStateJson(invocation.instanceId, stateJson)) saveSnapshot(db, id, stateJson);
      if (outbox.length > 0) insertDeliverRows(db, outbox, "PENDING", contents);
    } catch (error) {
      if (owned && written) {
        abortDeferred(db, error);
        this.instances.forgetStates();
      }
      throw error;
    }
    if (owned && outbox.length > 0 && commitsBeforeSuccessors(invocation.nodeName)) this.markUnsettled(invocation.invocationId);
    const promoted = new Array<DeliverRow>(outbox.length);
    for (let i = 0; i < outbox.length; i++) promoted[i] = deliverRow(outbox[i], "PENDING", null);
    return promoted;
  }

  /** Deferred: committed with the next completion (or any other write, or the next macrotask). */
  override promoteConsumed(invocation: NodeInvocation): void {
    assertUnfenced(this.fenced, invocation.instanceId);
    beginDeferred(this.db, false);
    if (this.begins.promoteConsumed(invocation)) return;
    const { instanceId, nodeId, invocationId } = invocation;
    const ledger = knownLedger(this.db, instanceId);
    if (!ledger) {
      statement(this.db, DELIVER_SQL.promoteConsumed).run(instanceId, instanceId, nodeId, invocationId);
      return;
    }
    const seqs = claimedSeqs(ledger, nodeId, invocationId);
    if (seqs.length > 0) promoteSeqs(this.db, instanceId, seqs, invocationId);
    noteConsumed(ledger, nodeId, { consumedBy: invocationId });
  }

  /**
   * An interrupt's or drain's cancel, or a failure: durable when it returns, as the base's, for an
   * invocation whose begin is committed (a node that awaited). A begin still held in memory (a node
   * that ended in the stretch it began in) is written straight in its final status and commits with
   * the instance's status change that follows, at the latest the next macrotask: a crash before then
   * leaves its inputs as they were before it began, and recovery runs it again.
   */
  override cancelInvocation(invocation: NodeInvocation, reason: string): NodeInvocation | undefined {
    return this.finish(invocation, "CANCELLED", reason);
  }

  override failInvocation(invocation: NodeInvocation, error: string): NodeInvocation | undefined {
    return this.finish(invocation, "FAILED", error);
  }

  private finish(invocation: NodeInvocation, to: "CANCELLED" | "FAILED", error: string): NodeInvocation | undefined {
    assertUnfenced(this.fenced, invocation.instanceId);
    // A held begin is in the open deferred transaction: written final, it commits with the status
    // change that follows. A crash before then only loses the begin: its inputs stay open for a retry.
    // A sibling begun in the same stretch that awaits still shows RUNNING from the next microtask.
    if (this.begins.finish(invocation, to, error)) {
      if (!this.begins.holdsRunning()) commitWithNextStatus(this.db);
      return undefined;
    }
    return commitWith(this.db, () => finishInvocation(this.db, invocation.invocationId, to, error), { oneWrite: true });
  }

  /**
   * The base recovery, all or nothing. It first only reads, in the deferred transaction the run's
   * first node joins: resuming a paused or interrupted run usually finds nothing to close, and then
   * costs no commit of its own. Otherwise the windows are closed in a transaction of their own: a crash
   * during recovery leaves nothing half-closed.
   */
  override recover(instanceId: string): Promise<RecoveryScan> {
    // The ledger the run is about to read, loaded once for recovery's listings and the run's begins.
    if (beginDeferred(this.db, false)) ledgerToRun(this.db, instanceId);
    const scan = recoverStep(this, instanceId, false);
    if (scan) return Promise.resolve(scan);
    commitDeferred(this.db);
    return Promise.resolve(this.recoverTx(instanceId));
  }

  private markUnsettled(invocationId: string): void {
    const epoch = deferredEpoch(this.db);
    if (epoch !== this.unsettledEpoch) {
      this.unsettled.clear();
      this.unsettledEpoch = epoch;
    }
    this.unsettled.add(invocationId);
  }

  /** True when a row was written by a completion the deferred transaction still holds. */
  private readsUnsettled(inputs: readonly DeliverRow[]): boolean {
    if (this.unsettled.size === 0 || deferredEpoch(this.db) !== this.unsettledEpoch) return false;
    for (const row of inputs) if (row.sourceInvocationId !== null && this.unsettled.has(row.sourceInvocationId)) return true;
    return false;
  }

  /** A storage failure (or a fence it caused) ends the run where its last commit left it. */
  override abandonsRun(error: unknown): boolean {
    if (isRunFenced(error)) return true;
    if (!isStorageError(error)) return false;
    checkDeferredAfterError(this.db, error);
    return true;
  }

  /** Commits deferred steps; call before closing the connection on a clean shutdown. */
  flush(): void {
    commitDeferred(this.db);
  }
}

/**
 * The base coordinator's recovery. With `apply` false it only reads, and answers null as soon as it
 * finds something to close (an orphan, a staged row, a completed consumer's claimed row).
 */
function recoverStep(coord: SqliteCoordinator, instanceId: string, apply: boolean): RecoveryScan | null {
  const { nodes, delivers } = coord;
  const orphans = nodes.listRunning(instanceId);
  if (orphans.length > 0 && !apply) return null;
  for (const o of orphans) nodes.markCrashed(o.invocationId);
  if (orphans.length > 0) delivers.discardStaged(orphans.map((o) => o.invocationId));

  const open = delivers.listByStatus(instanceId, ["STAGED", "CONSUMED_PENDING"]);
  const sources = new Set<string>();
  const consumers = new Set<string>();
  for (const row of open) {
    if (row.status === "STAGED" && row.sourceInvocationId) sources.add(row.sourceInvocationId);
    if (row.status === "CONSUMED_PENDING" && row.consumedByInvocationId) consumers.add(row.consumedByInvocationId);
  }
  if (sources.size > 0 && !apply) return null;
  for (const id of sources) {
    if (nodes.get(id)?.status === "COMPLETED") delivers.promoteStaged(id);
    else delivers.discardStaged([id]);
  }
  for (const id of consumers) {
    // An interrupted consumer (the usual claimed row at a resume) is known to memory: no query.
    if ((knownUnfinishedStatus(coord.db, instanceId, id) ?? nodes.get(id)?.status) !== "COMPLETED") continue;
    if (!apply) return null;
    delivers.promoteConsumed(id);
  }

  const pending = delivers.listByStatus(instanceId, ["PENDING", "CONSUMED_PENDING"]);
  return {
    orphanedNodeIds: [...new Set(orphans.map((o) => o.nodeId))],
    pendingNodeIds: [...new Set(pending.map((r) => r.targetNodeId))],
  };
}

/** Every coordinator it creates shares one connection and its prepared statements. */
export class SqliteCoordinatorFactory implements CoordinatorFactory {
  private readonly shared: SqliteCoordinator;
  constructor(db: Database) {
    this.shared = new SqliteCoordinator(db);
  }
  create(): SqliteCoordinator {
    return this.shared;
  }
}
