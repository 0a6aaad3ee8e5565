import {
  GraphPersistenceCoordinator,
  type CoordinatorFactory,
  type OpenedInvocation,
  type RecoveryScan,
} from "@/server/graph/persistence/coordinator";
import type { DeliverRow, NewDeliverRow, NodeInvocation } from "@/server/graph/persistence/records";
import { statement, toJson, type Database } from "./graph-database";
import { DELIVER_SQL, insertDeliverRows, selectConsumable, SqliteDeliverStore } from "./sqlite-deliver-store";
import { SqliteGraphInstanceStore } from "./sqlite-instance-store";
import { INVOCATION_SQL, insertInvocation, lostInvocationRace, SqliteNodeStateStore } from "./sqlite-node-state-store";

const SAVE_STATE = `UPDATE graph_instances SET state = ? WHERE instance_id = ? AND is_latest = 1`;

interface OpenArgs {
  instanceId: string;
  nodeId: string;
  nodeName: string;
}

/**
 * The durable coordinator: each lifecycle step is ONE SQLite transaction of prepared statements, so a
 * node invocation is committed before its successor starts and a crash leaves only the windows
 * `recover()` closes. Observable ledger states are those of the base coordinator:
 * - openInvocation: begin RUNNING + read the consumable rows + claim them (→ CONSUMED_PENDING);
 * - completeInvocation: compare-and-swap RUNNING → COMPLETED + write the outbox + save the shared state.
 *   The outbox is written straight as PENDING: STAGED rows of a completed invocation are never visible
 *   outside the transaction, which is what staging-then-promoting would leave after commit;
 * - promoteConsumed: the claimed inputs become CONSUMED_COMPLETED (one statement).
 * Steps return synchronously: the engine's hot path awaits no promise.
 */
export class SqliteCoordinator extends GraphPersistenceCoordinator {
  declare readonly instances: SqliteGraphInstanceStore;
  declare readonly nodes: SqliteNodeStateStore;
  declare readonly delivers: SqliteDeliverStore;
  private readonly openTx: (args: OpenArgs) => OpenedInvocation;
  private readonly completeTx: (invocation: NodeInvocation, outbox: readonly NewDeliverRow[], state: unknown) => DeliverRow[];
  private readonly recoverTx: (instanceId: string) => RecoveryScan;

  constructor(readonly db: Database) {
    super(new SqliteGraphInstanceStore(db), new SqliteNodeStateStore(db), new SqliteDeliverStore(db));
    const open = db.transaction((args: OpenArgs) => openStep(db, args));
    this.openTx = (args) => open.immediate(args);
    const complete = db.transaction((inv: NodeInvocation, outbox: readonly NewDeliverRow[], state: unknown) =>
      completeStep(db, inv, outbox, state),
    );
    this.completeTx = (inv, outbox, state) => complete.immediate(inv, outbox, state);
    const recover = db.transaction((instanceId: string) => recoverStep(this, instanceId));
    this.recoverTx = (instanceId) => recover.immediate(instanceId);
  }

  override openInvocation(args: OpenArgs): OpenedInvocation {
    return this.openTx(args);
  }

  override completeInvocation(invocation: NodeInvocation, outbox: readonly NewDeliverRow[], state?: unknown): DeliverRow[] {
    return this.completeTx(invocation, outbox, state);
  }

  override promoteConsumed(invocation: NodeInvocation): void {
    statement(this.db, DELIVER_SQL.promoteConsumed).run(invocation.invocationId);
  }

  /** The base recovery, in one transaction: a crash during recovery leaves nothing half-closed. */
  override recover(instanceId: string): Promise<RecoveryScan> {
    return Promise.resolve(this.recoverTx(instanceId));
  }
}

function openStep(db: Database, args: OpenArgs): OpenedInvocation {
  const invocation = insertInvocation(db, args);
  const inputs = selectConsumable(db, args.instanceId, args.nodeId);
  if (inputs.length > 0) statement(db, DELIVER_SQL.claimAll).run(invocation.invocationId, args.instanceId, args.nodeId);
  return { invocation, inputs };
}

function completeStep(db: Database, inv: NodeInvocation, outbox: readonly NewDeliverRow[], state: unknown): DeliverRow[] {
  const id = inv.invocationId;
  if (statement(db, INVOCATION_SQL.complete).run(Date.now(), id).changes === 0) lostInvocationRace(db, id);
  if (state !== undefined) statement(db, SAVE_STATE).run(toJson(state), inv.instanceId);
  if (outbox.length === 0) return [];
  insertDeliverRows(db, outbox, "PENDING");
  const promoted = new Array<DeliverRow>(outbox.length);
  for (let i = 0; i < outbox.length; i++) promoted[i] = { ...outbox[i], status: "PENDING", consumedByInvocationId: null };
  return promoted;
}

function recoverStep(coord: SqliteCoordinator, instanceId: string): RecoveryScan {
  const { nodes, delivers } = coord;
  const orphans = nodes.listRunning(instanceId);
  for (const o of orphans) nodes.markCrashed(o.invocationId);
  if (orphans.length > 0) delivers.discardStaged(orphans.map((o) => o.invocationId));

  const open = delivers.listByStatus(instanceId, ["STAGED", "CONSUMED_PENDING"]);
  const sources = new Set<string>();
  const consumers = new Set<string>();
  for (const row of open) {
    if (row.status === "STAGED" && row.sourceInvocationId) sources.add(row.sourceInvocationId);
    if (row.status === "CONSUMED_PENDING" && row.consumedByInvocationId) consumers.add(row.consumedByInvocationId);
  }
  for (const id of sources) {
    if (nodes.get(id)?.status === "COMPLETED") delivers.promoteStaged(id);
    else delivers.discardStaged([id]);
  }
  for (const id of consumers) {
    if (nodes.get(id)?.status === "COMPLETED") delivers.promoteConsumed(id);
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
