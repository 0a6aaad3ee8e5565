import {
  GraphPersistenceCoordinator,
  type CoordinatorFactory,
  type OpenedInvocation,
  type RecoveryScan,
} from "@/server/graph/persistence/coordinator";
import { deliverRow, type DeliverRow, type NewDeliverRow, type NodeInvocation } from "@/server/graph/persistence/records";
import { KeyedChain } from "@/server/graph/keyed-chain";
import type { Awaitable } from "@/server/graph/awaitable";
import { GatedPool, inTransaction, isPgStorageError, toJson, toTimestamp, type PgEngineDatabase, type PgQueryable } from "./pg-database";
import { DELIVER_COLUMNS, insertRowsSql, PgDeliverStore, rowArrays, toDeliverRow, type DeliverRowRecord } from "./pg-deliver-store";
import { PgGraphInstanceStore } from "./pg-instance-store";
import { BEGIN_SQL, lostInvocationRace, newInvocationId, PgNodeStateStore } from "./pg-node-state-store";

/**
 * The rows of CTE `open` as one JSON array in delivery order (null when there are none): a begin answers
 * one short row, which costs the driver less to read than a row per input of fourteen columns.
 */
const INPUTS_JSON = "(SELECT json_agg(o ORDER BY o.seq) FROM open o) AS inputs";

/**
 * openInvocation in one statement: begin (RUNNING, next version of the node's chain), read the node's
 * consumable rows as they were, and claim them (→ CONSUMED_PENDING for this invocation). Parameters:
 * BEGIN_SQL's. One row: the begin's version and parent, and the claimed inputs (INPUTS_JSON).
 */
const OPEN_SQL = `WITH inv AS (${BEGIN_SQL}),
  open AS (
    SELECT seq, ${DELIVER_COLUMNS} FROM deliver_rows
    WHERE instance_id = $2 AND target_node_id = $3 AND status IN ('PENDING', 'CONSUMED_PENDING')),
  claimed AS (
    UPDATE deliver_rows SET status = 'CONSUMED_PENDING', consumed_by = $1
    WHERE instance_id = $2 AND target_node_id = $3 AND status IN ('PENDING', 'CONSUMED_PENDING'))
  SELECT inv.version, inv.parent_version, ${INPUTS_JSON} FROM inv`;

/**
 * The state snapshot of a completion (the replay state panel and forks read it, run-points.ts): the state
 * JSON kept as of invocation $1 when it differs from what the instance held before (every CTE of the
 * statement reads the rows as they were before it), so a node that leaves the state alone keeps none, as
 * on SQLite. Written by the completion's own statement: committed exactly when the completion is.
 */
const keepSnapshotSql = (state: string) => `INSERT INTO state_snapshots (invocation_id, state)
    SELECT $1, ${state}::json
    WHERE EXISTS (SELECT 1 FROM done)
      AND (SELECT state::text FROM graph_instances WHERE instance_id = $3 AND is_latest) IS DISTINCT FROM ${state}::json::text
    ON CONFLICT (invocation_id) DO UPDATE SET state = EXCLUDED.state`;

/**
 * The shared state's save and snapshot, as CTEs after `done`, for a completion that carries the state
 * (parameter `state`). A completion without one runs a statement without them: every table and CTE of a
 * statement costs PostgreSQL its set-up on each execution, also when its condition is false.
 */
const saveStateSql = (state: string) => `,
  saved AS (
    UPDATE graph_instances SET state = ${state}::json
    WHERE instance_id = $3 AND is_latest AND EXISTS (SELECT 1 FROM done)),
  kept AS (${keepSnapshotSql(state)})`;

/**
 * completeInvocation in one statement, all or nothing: compare-and-swap RUNNING → COMPLETED, and only
 * if it won: write the outbox (PENDING: staged rows of a completed invocation are what promotion would
 * leave), make the invocation's claimed inputs CONSUMED_COMPLETED (the lifecycle's last step, so
 * `promoteConsumed` has nothing left to do), and, with the state, save it and keep it as of this
 * invocation (keepSnapshotSql). Parameters: $1 invocation, $2 end time, $3 instance, $4–$12 the outbox
 * (`insertRowsSql`'s arrays), with the state $13 its JSON.
 */
const completeSql = (withState: boolean) => `WITH done AS (
    UPDATE node_invocations SET status = 'COMPLETED', ended_at = $2::timestamptz
    WHERE invocation_id = $1 AND instance_id = $3 AND status = 'RUNNING' RETURNING 1),
  outbox AS (
    ${insertRowsSql(4, "'PENDING'", "EXISTS (SELECT 1 FROM done)")}),
  inputs AS (
    UPDATE deliver_rows SET status = 'CONSUMED_COMPLETED'
    WHERE consumed_by = $1 AND status = 'CONSUMED_PENDING' AND EXISTS (SELECT 1 FROM done))${withState ? saveStateSql("$13") : ""}
  SELECT count(*)::int AS n FROM done`;

/**
 * A held completion and the next begin in one statement (the chain's common case: one commit per node).
 * COMPLETE_SQL's parameters $1–$12, then OPEN_SQL's shifted to $13–$17 (new invocation, instance, node
 * id, node name, start), $18: the held invocation's version when it is the same (instance, node) —
 * it completes in this very statement, so the snapshot the begin reads still shows it RUNNING, and it
 * is the new invocation's parent — and with the state $19 its JSON. Outbox rows addressed to the new
 * invocation's node are written claimed by it (the snapshot cannot see them either); the rows the held
 * invocation claimed are not offered again (they become CONSUMED_COMPLETED here). A lost
 * compare-and-swap raises MX001 (`modex_lost_race`), which rolls back the whole statement.
 */
const completeThenOpenSql = (withState: boolean) => `WITH done AS (
    UPDATE node_invocations SET status = 'COMPLETED', ended_at = $2::timestamptz
    WHERE invocation_id = $1 AND instance_id = $3 AND status = 'RUNNING' RETURNING 1),
  outbox AS (
    ${insertRowsSql(
      4,
      "CASE WHEN r.instance_id = $14 AND r.target_node_id = $15 THEN 'CONSUMED_PENDING' ELSE 'PENDING' END",
      "EXISTS (SELECT 1 FROM done)",
      "CASE WHEN r.instance_id = $14 AND r.target_node_id = $15 THEN $13 END",
    )}),
  inputs AS (
    UPDATE deliver_rows SET status = 'CONSUMED_COMPLETED'
    WHERE consumed_by = $1 AND status = 'CONSUMED_PENDING' AND EXISTS (SELECT 1 FROM done))${withState ? saveStateSql("$19") : ""},
  inv AS (
    INSERT INTO node_invocations
      (invocation_id, instance_id, node_id, node_name, version, parent_version, status, started_at)
    SELECT $13, $14, $15, $16, coalesce(max(version), 0) + 1,
      greatest(max(version) FILTER (WHERE status = 'COMPLETED'), $18::int), 'RUNNING', $17::timestamptz
    FROM node_invocations WHERE instance_id = $14 AND node_id = $15
    RETURNING version, parent_version),
  open AS (
    SELECT seq, ${DELIVER_COLUMNS} FROM deliver_rows
    WHERE instance_id = $14 AND target_node_id = $15 AND status IN ('PENDING', 'CONSUMED_PENDING')
      AND consumed_by IS DISTINCT FROM $1),
  claimed AS (
    UPDATE deliver_rows SET status = 'CONSUMED_PENDING', consumed_by = $13
    WHERE instance_id = $14 AND target_node_id = $15 AND status IN ('PENDING', 'CONSUMED_PENDING')
      AND consumed_by IS DISTINCT FROM $1)
  SELECT CASE WHEN EXISTS (SELECT 1 FROM done) THEN 1 ELSE modex_lost_race($1) END AS won,
    inv.version, inv.parent_version, ${INPUTS_JSON}
  FROM inv`;

/** Each statement's text, with and without the state, built once. */
const COMPLETE_SQL = { stateful: completeSql(true), stateless: completeSql(false) };
const COMPLETE_THEN_OPEN_SQL = { stateful: completeThenOpenSql(true), stateless: completeThenOpenSql(false) };

/** A begin's answer; the inputs' timestamps are JSON text. */
interface OpenRow {
  version: number;
  parent_version: number | null;
  inputs: (Omit<DeliverRowRecord, "created_at"> & { created_at: string })[] | null;
}

interface OpenArgs {
  instanceId: string;
  nodeId: string;
  nodeName: string;
}

/** A completion returned to the engine and not yet written (see PgCoordinator). */
interface HeldCompletion {
  invocation: NodeInvocation;
  outbox: readonly NewDeliverRow[];
  state: string | null;
  endedAt: number;
}

/**
 * The durable coordinator on PostgreSQL. Observable ledger states are the base coordinator's:
 * - openInvocation: begin RUNNING + the consumable rows, claimed (OPEN_SQL, one statement);
 * - completeInvocation: COMPLETED + the outbox PENDING + the inputs CONSUMED_COMPLETED + the state
 *   (COMPLETE_SQL, one statement): the commit point the base's complete → promote → promoteConsumed
 *   reaches;
 * - cancel and fail: a compare-and-swap, inputs left claimed for the retry; recovery: one transaction.
 * Steps commit on `db.steps`, status changes on `db.acks` (see PgEngineDatabase for what each promises).
 *
 * Grouped commits: a completion of an invocation this coordinator opened is held in memory (one per
 * instance) and written in the same statement as the instance's next begin (COMPLETE_THEN_OPEN_SQL),
 * which in a chain is its successor's: one statement and one commit per node. The completion is still
 * committed before its successor starts, since the successor's begin is in the same transaction, after
 * it. Other instances' steps neither wait for it nor write it: a worker runs many instances on one
 * coordinator, and with one slot for all, their steps kept writing each other's held completions in
 * statements of their own (a 10-node chain on a worker running 32 at once: 22 step statements, now 13).
 * Anything else for the instance (its fail, cancel, state) writes its held completion first; a statement
 * through the stores writes every held completion first, and so does the event loop's next macrotask
 * (a successor that never comes, a node awaiting I/O). So:
 * - a crash before that write loses the completion: recovery runs the node again (node bodies are at
 *   least once), exactly as a crash just before an unheld completion would;
 * - an engine observer may see node_completed a little before it is committed: announce it only after
 *   `flush()` (or after a write through these stores, which flushes first);
 * - a held completion that loses its compare-and-swap (another process took the instance over) fails
 *   the step that writes it, for this instance, instead of the completion itself.
 */
export class PgCoordinator extends GraphPersistenceCoordinator {
  declare readonly instances: PgGraphInstanceStore;
  declare readonly nodes: PgNodeStateStore;
  declare readonly delivers: PgDeliverStore;
  /** Invocations whose completion already made their inputs terminal (promoteConsumed is then a no-op). */
  private readonly inputsSettled = new Set<string>();
  /** Invocations this coordinator opened that are still RUNNING as far as it knows. */
  private readonly runningHere = new Set<string>();
  /** At most one held completion per instance. */
  private readonly held = new Map<string, HeldCompletion>();
  /** Per instance, the statement writing its held completion, while it runs: its other steps wait for it. */
  private readonly writing = new KeyedChain();
  private flushScheduled = false;
  /** A held completion's write that failed: raised by the instance's next step, unless its caller was told. */
  private readonly failures = new Map<string, unknown>();

  constructor(readonly db: PgEngineDatabase) {
    const flushFirst = () => this.flush();
    const gated = { acks: new GatedPool(db.acks, flushFirst), steps: new GatedPool(db.steps, flushFirst) };
    super(new PgGraphInstanceStore(gated), new PgNodeStateStore(gated), new PgDeliverStore(gated));
  }

  /**
   * Writes every held completion and waits for the writes in progress; rejects when one of the writes it
   * started fails. Call before announcing what the engine reported (node_completed) and before closing
   * the connections.
   */
  flush(): Promise<void> {
    if (this.held.size === 0) return this.writing.allSettled();
    const writes: Promise<void>[] = [this.writing.allSettled()];
    for (const instanceId of [...this.held.keys()]) writes.push(this.flushInstance(instanceId));
    return Promise.all(writes).then(() => undefined);
  }

  /** Writes the instance's held completion, if any, or waits for the write of it in progress. */
  private flushInstance(instanceId: string): Promise<void> {
    const held = this.held.get(instanceId);
    if (!held) return this.writing.settled(instanceId);
    this.held.delete(instanceId);
    return this.serialized(() => this.writeCompletion(held), instanceId);
  }

  override async openInvocation(args: OpenArgs): Promise<OpenedInvocation> {
    // Synchronous up to the first await: of an instance's begins called one after another (a fan-out's
    // branches), the first takes its held completion along and the others wait for its statement,
    // whose rows they may need.
    for (let w = this.writing.inProgress(args.instanceId); w; w = this.writing.inProgress(args.instanceId)) await w;
    this.raiseFailure(args.instanceId);
    const held = this.held.get(args.instanceId);
    if (held) this.held.delete(args.instanceId);
    const invocationId = newInvocationId(args.instanceId);
    const startedAt = Date.now();
    const opening = async (): Promise<OpenedInvocation> => {
      const rows = held ? await this.completeThenOpen(held, invocationId, args, startedAt) : await this.open(invocationId, args, startedAt);
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
      for (const r of rows[0].inputs ?? []) inputs.push(toDeliverRow({ ...r, created_at: new Date(r.created_at) }));
      if (held) {
        for (const r of held.outbox) {
          if (r.instanceId === args.instanceId && r.targetNodeId === args.nodeId) inputs.push(deliverRow(r, "PENDING", null));
        }
      }
      this.runningHere.add(invocationId);
      return { invocation, inputs };
    };
    if (!held) return opening();
    const instanceId = held.invocation.instanceId;
    return this.serialized(opening, instanceId).catch((error: unknown) => {
      this.failures.delete(instanceId); // this caller is told
      throw error;
    });
  }

  override completeInvocation(invocation: NodeInvocation, outbox: readonly NewDeliverRow[], state?: unknown): Awaitable<DeliverRow[]> {
    const id = invocation.invocationId;
    if (!this.held.has(invocation.instanceId) && this.runningHere.has(id) && !this.failures.has(invocation.instanceId)) {
      this.runningHere.delete(id);
      this.held.set(invocation.instanceId, { invocation, outbox, state: state === undefined ? null : toJson(state), endedAt: Date.now() });
      this.inputsSettled.add(id);
      this.scheduleFlush();
      return outbox.map((r) => deliverRow(r, "PENDING", null));
    }
    return this.completeNow(invocation, outbox, state);
  }

  private async completeNow(invocation: NodeInvocation, outbox: readonly NewDeliverRow[], state?: unknown): Promise<DeliverRow[]> {
    await this.settled(invocation.instanceId);
    this.runningHere.delete(invocation.invocationId);
    await this.writeCompletion({ invocation, outbox, state: state === undefined ? null : toJson(state), endedAt: Date.now() });
    this.inputsSettled.add(invocation.invocationId);
    return outbox.map((r) => deliverRow(r, "PENDING", null));
  }

  override async promoteConsumed(invocation: NodeInvocation): Promise<void> {
    if (this.inputsSettled.delete(invocation.invocationId)) return;
    await this.delivers.promoteConsumed(invocation.invocationId);
  }

  override async cancelInvocation(invocation: NodeInvocation, reason: string): Promise<unknown> {
    this.runningHere.delete(invocation.invocationId);
    await this.settled(invocation.instanceId);
    return this.nodes.cancel(invocation.invocationId, reason);
  }

  override async failInvocation(invocation: NodeInvocation, error: string): Promise<unknown> {
    this.runningHere.delete(invocation.invocationId);
    await this.settled(invocation.instanceId);
    return this.nodes.fail(invocation.invocationId, error);
  }

  override async checkpointState(instanceId: string, state: unknown): Promise<void> {
    await this.settled(instanceId);
    return this.instances.saveState(instanceId, state);
  }

  /** The base recovery, in one transaction: a crash during recovery leaves nothing half-closed. */
  override async recover(instanceId: string): Promise<RecoveryScan> {
    await this.flush().catch(() => undefined);
    this.failures.delete(instanceId);
    return inTransaction(this.db.steps, (tx) => recoverIn(tx, instanceId));
  }

  /** A lost connection or a server going away ends the run where its last commit left it. */
  override abandonsRun(error: unknown): boolean {
    return isPgStorageError(error);
  }

  /** Writes what is held for the instance and waits for its write in progress; then raises a failure left for it. */
  private async settled(instanceId: string): Promise<void> {
    await this.flushInstance(instanceId).catch(() => undefined);
    this.raiseFailure(instanceId);
  }

  private raiseFailure(instanceId: string): void {
    const failure = this.failures.get(instanceId);
    if (failure === undefined) return;
    this.failures.delete(instanceId);
    throw failure;
  }

  /**
   * Runs `write` after the instance's write in progress, as its new write in progress. A failure is also
   * left for the instance's next step (raiseFailure), unless the caller who is told takes it back.
   */
  private serialized<T>(write: () => Promise<T>, instanceId: string): Promise<T> {
    return this.writing.run(instanceId, write, (error) => this.failures.set(instanceId, error));
  }

  /** The next macrotask writes a completion no statement took along. */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush().catch(() => undefined); // left for the instance's next step (see serialized)
    });
  }

  private async writeCompletion(held: HeldCompletion): Promise<void> {
    const id = held.invocation.invocationId;
    const values = [id, toTimestamp(held.endedAt), held.invocation.instanceId, ...rowArrays(held.outbox)];
    const withState = held.state !== null;
    const { rows } = await this.db.steps.query<{ n: number }>({
      name: withState ? "modex_coordinator_complete" : "modex_coordinator_complete_stateless",
      text: withState ? COMPLETE_SQL.stateful : COMPLETE_SQL.stateless,
      values: withState ? [...values, held.state] : values,
    });
    if (rows[0].n === 0) await lostInvocationRace(this.db.steps, id);
  }

  private async open(invocationId: string, args: OpenArgs, startedAt: number): Promise<OpenRow[]> {
    const { rows } = await this.db.steps.query<OpenRow>({
      name: "modex_coordinator_open",
      text: OPEN_SQL,
      values: [invocationId, args.instanceId, args.nodeId, args.nodeName, toTimestamp(startedAt)],
    });
    return rows;
  }

  private async completeThenOpen(held: HeldCompletion, invocationId: string, args: OpenArgs, startedAt: number): Promise<OpenRow[]> {
    const h = held.invocation;
    const sameChain = h.instanceId === args.instanceId && h.nodeId === args.nodeId ? h.version : null;
    try {
      const values = [
        h.invocationId,
        toTimestamp(held.endedAt),
        h.instanceId,
        ...rowArrays(held.outbox),
        invocationId,
        args.instanceId,
        args.nodeId,
        args.nodeName,
        toTimestamp(startedAt),
        sameChain,
      ];
      const withState = held.state !== null;
      const { rows } = await this.db.steps.query<OpenRow>({
        name: withState ? "modex_coordinator_complete_then_open" : "modex_coordinator_complete_then_open_stateless",
        text: withState ? COMPLETE_THEN_OPEN_SQL.stateful : COMPLETE_THEN_OPEN_SQL.stateless,
        values: withState ? [...values, held.state] : values,
      });
      return rows;
    } catch (error) {
      if ((error as { code?: unknown }).code === "MX001") await lostInvocationRace(this.db.steps, h.invocationId);
      throw error;
    }
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
