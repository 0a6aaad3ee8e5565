import {
  GraphPersistenceCoordinator,
  type CoordinatorFactory,
  type OpenedInvocation,
  type RecoveryScan,
} from "@/server/graph/persistence/coordinator";
import { deliverRow, type DeliverRow, type NewDeliverRow, type NodeInvocation } from "@/server/graph/persistence/records";
import { inTransaction, isPgStorageError, toJson, toTimestamp, type PgEngineDatabase, type PgQueryable } from "./pg-database";
import { DELIVER_COLUMNS, insertRowsSql, PgDeliverStore, rowArrays, toDeliverRow, type DeliverRowRecord } from "./pg-deliver-store";
import { PgGraphInstanceStore } from "./pg-instance-store";
import { BEGIN_SQL, lostInvocationRace, newInvocationId, PgNodeStateStore } from "./pg-node-state-store";

/**
 * openInvocation in one statement: begin (RUNNING, next version of the node's chain), read the node's
 * consumable rows as they were, and claim them (→ CONSUMED_PENDING for this invocation). Parameters:
 * BEGIN_SQL's. One row per claimed input (the begin's version repeated), or one row of nulls after it.
 */
const OPEN_SQL = `WITH inv AS (${BEGIN_SQL}),
  open AS (
    SELECT seq, ${DELIVER_COLUMNS} FROM deliver_rows
    WHERE instance_id = $2 AND target_node_id = $3 AND status IN ('PENDING', 'CONSUMED_PENDING')),
  claimed AS (
    UPDATE deliver_rows d SET status = 'CONSUMED_PENDING', consumed_by = $1
    FROM open o WHERE d.instance_id = $2 AND d.seq = o.seq)
  SELECT inv.version, inv.parent_version, o.* FROM inv LEFT JOIN open o ON true ORDER BY o.seq`;

/**
 * completeInvocation in one statement, all or nothing: compare-and-swap RUNNING → COMPLETED, and only
 * if it won: write the outbox (PENDING: staged rows of a completed invocation are what promotion would
 * leave), make the invocation's claimed inputs CONSUMED_COMPLETED (the lifecycle's last step, so
 * `promoteConsumed` has nothing left to do), and save the shared state. Parameters: $1 invocation, $2
 * end time, $3 instance, $4–$12 the outbox (`insertRowsSql`'s arrays), $13 the state JSON or null.
 */
const COMPLETE_SQL = `WITH done AS (
    UPDATE node_invocations SET status = 'COMPLETED', ended_at = $2::timestamptz
    WHERE invocation_id = $1 AND status = 'RUNNING' RETURNING 1),
  outbox AS (
    ${insertRowsSql(4, "'PENDING'", "EXISTS (SELECT 1 FROM done)")}),
  inputs AS (
    UPDATE deliver_rows SET status = 'CONSUMED_COMPLETED'
    WHERE consumed_by = $1 AND status = 'CONSUMED_PENDING' AND EXISTS (SELECT 1 FROM done)),
  saved AS (
    UPDATE graph_instances SET state = $13::json
    WHERE instance_id = $3 AND is_latest AND $13::json IS NOT NULL AND EXISTS (SELECT 1 FROM done))
  SELECT count(*)::int AS n FROM done`;

type OpenRow = Partial<DeliverRowRecord> & { version: number; parent_version: number | null; deliver_id: string | null };

/**
 * The durable coordinator on PostgreSQL. Each lifecycle step is one statement (one round trip, its own
 * transaction), committed before it returns, so a node's completion is committed before its successors
 * start; recovery runs in one transaction. Observable ledger states are the base coordinator's:
 * - openInvocation: begin RUNNING + the consumable rows, claimed (OPEN_SQL);
 * - completeInvocation: COMPLETED + the outbox PENDING + the inputs CONSUMED_COMPLETED + the state
 *   (COMPLETE_SQL): the commit point the base's complete → promote → promoteConsumed reaches;
 * - cancel and fail: a compare-and-swap, inputs left claimed for the retry.
 * Steps commit on `db.steps`, status changes on `db.acks` (see PgEngineDatabase for what each promises).
 */
export class PgCoordinator extends GraphPersistenceCoordinator {
  declare readonly instances: PgGraphInstanceStore;
  declare readonly nodes: PgNodeStateStore;
  declare readonly delivers: PgDeliverStore;
  /** Invocations whose completion already made their inputs terminal (promoteConsumed is then a no-op). */
  private readonly inputsSettled = new Set<string>();

  constructor(readonly db: PgEngineDatabase) {
    super(new PgGraphInstanceStore(db), new PgNodeStateStore(db), new PgDeliverStore(db));
  }

  override async openInvocation(args: { instanceId: string; nodeId: string; nodeName: string }): Promise<OpenedInvocation> {
    const invocationId = newInvocationId(args.instanceId);
    const startedAt = Date.now();
    const { rows } = await this.db.steps.query<OpenRow>({
      name: "modex_coordinator_open",
      text: OPEN_SQL,
      values: [invocationId, args.instanceId, args.nodeId, args.nodeName, toTimestamp(startedAt)],
    });
    const invocation: NodeInvocation = {
      invocationId,
      instanceId: args.instanceId,
      nodeId: args.nodeId,
      nodeName: args.nodeName,
      version: rows[0].version,
      parentVersion: rows[0].parent_version,
      status: "RUNNING",
      startedAt,
      endedAt: null,
      error: null,
    };
    const inputs: DeliverRow[] = [];
    for (const row of rows) if (row.deliver_id !== null) inputs.push(toDeliverRow(row as DeliverRowRecord));
    return { invocation, inputs };
  }

  override async completeInvocation(invocation: NodeInvocation, outbox: readonly NewDeliverRow[], state?: unknown): Promise<DeliverRow[]> {
    const id = invocation.invocationId;
    const { rows } = await this.db.steps.query<{ n: number }>({
      name: "modex_coordinator_complete",
      text: COMPLETE_SQL,
      values: [id, toTimestamp(Date.now()), invocation.instanceId, ...rowArrays(outbox), state === undefined ? null : toJson(state)],
    });
    if (rows[0].n === 0) return lostInvocationRace(this.db.steps, id);
    this.inputsSettled.add(id);
    return outbox.map((r) => deliverRow(r, "PENDING", null));
  }

  override async promoteConsumed(invocation: NodeInvocation): Promise<void> {
    if (this.inputsSettled.delete(invocation.invocationId)) return;
    await this.delivers.promoteConsumed(invocation.invocationId);
  }

  /** The base recovery, in one transaction: a crash during recovery leaves nothing half-closed. */
  override recover(instanceId: string): Promise<RecoveryScan> {
    return inTransaction(this.db.steps, (tx) => recoverIn(tx, instanceId));
  }

  /** A lost connection or a server going away ends the run where its last commit left it. */
  override abandonsRun(error: unknown): boolean {
    return isPgStorageError(error);
  }
}

/** GraphPersistenceCoordinator.recover through stores bound to one transaction's client. */
async function recoverIn(tx: PgQueryable, instanceId: string): Promise<RecoveryScan> {
  const bound = { steps: tx, acks: tx };
  const nodes = new PgNodeStateStore(bound);
  const delivers = new PgDeliverStore(bound);
  const orphans = await nodes.listRunning(instanceId);
  for (const o of orphans) await nodes.markCrashed(o.invocationId);
  if (orphans.length > 0) await delivers.discardStaged(orphans.map((o) => o.invocationId));

  const open = await delivers.listByStatus(instanceId, ["STAGED", "CONSUMED_PENDING"]);
  const sources = new Set<string>();
  const consumers = new Set<string>();
  for (const row of open) {
    if (row.status === "STAGED" && row.sourceInvocationId) sources.add(row.sourceInvocationId);
    if (row.status === "CONSUMED_PENDING" && row.consumedByInvocationId) consumers.add(row.consumedByInvocationId);
  }
  for (const id of sources) {
    if ((await nodes.get(id))?.status === "COMPLETED") await delivers.promoteStaged(id);
    else await delivers.discardStaged([id]);
  }
  for (const id of consumers) {
    if ((await nodes.get(id))?.status === "COMPLETED") await delivers.promoteConsumed(id);
  }

  const pending = await delivers.listByStatus(instanceId, ["PENDING", "CONSUMED_PENDING"]);
  return {
    orphanedNodeIds: [...new Set(orphans.map((o) => o.nodeId))],
    pendingNodeIds: [...new Set(pending.map((r) => r.targetNodeId))],
  };
}

/** Every coordinator it creates shares one database (two pools) and its prepared statements. */
export class PgCoordinatorFactory implements CoordinatorFactory {
  private readonly shared: PgCoordinator;
  constructor(db: PgEngineDatabase) {
    this.shared = new PgCoordinator(db);
  }
  create(): PgCoordinator {
    return this.shared;
  }
}
