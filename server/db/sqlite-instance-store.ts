import { InstanceNotFoundError, InstanceStateError } from "@/server/graph/errors";
import { newSnowflake } from "@/server/graph/ids";
import type { GraphPayload } from "@/server/graph/payload";
import type { CreateInstanceArgs, GraphInstanceStore, ListInstancesArgs, UpdateAttrsOptions } from "@/server/graph/persistence/instance-store";
import {
  canTransition,
  INSTANCE_STATUSES,
  type GraphInstanceRecord,
  type GraphIORecord,
  type InstanceStatus,
} from "@/server/graph/persistence/records";
import { type Database } from "./graph-database";
import { dataVersion, statement, toJson } from "./sqlite-statements";
import { commitWithRun, commitWith, deferWith, flushPendingWrites } from "./deferred-transaction";
import { forgetRunMemory, parkRunMemory, unparkRunMemory } from "./instance-memory";
import { INSTANCE_COLUMNS as COLUMNS, InstanceRecords, toRecord, type InstanceRow } from "./instance-records";
import { PendingStates } from "./pending-states";
import { assertUnfenced, fencedRuns } from "./run-fence";
import { trackNewInstance } from "./invocation-chains";
import { trackInvocationStatuses } from "./invocation-statuses";
import { knownLedger, lowWaterOf, trackNewLedger } from "./known-ledgers";

// Lookups of one instance say `+is_latest`: the unary plus keeps SQLite's planner on the primary key
// (instance_id, version). Without it the planner picks an (is_latest, ...) index and scans every
// latest instance in the database: O(instances) per load, state save and status change.
const SQL = {
  version: `SELECT ${COLUMNS} FROM graph_instances WHERE instance_id = ? AND version = ?`,
  versions: `SELECT ${COLUMNS} FROM graph_instances WHERE instance_id = ? ORDER BY version`,
  insert: `INSERT INTO graph_instances
    (instance_id, version, is_latest, status, graph_name, spec_id, node_id_map, attrs, state, created_at, updated_at)
    VALUES (?, ?, 1, 'running', ?, ?, ?, ?, NULL, ?, ?)`,
  /** A new version: its low-water mark is the retired version's (parameters: insert's, then that version). */
  insertVersion: `INSERT INTO graph_instances
    (instance_id, version, is_latest, status, graph_name, spec_id, node_id_map, attrs, state, created_at, updated_at,
      deliver_low_water)
    VALUES (?, ?, 1, 'running', ?, ?, ?, ?, NULL, ?, ?,
      (SELECT deliver_low_water FROM graph_instances WHERE instance_id = ? AND version = ?))`,
  insertIo: `INSERT INTO graph_io_records (instance_id, version, input, output) VALUES (?, ?, ?, NULL)`,
  retire: `UPDATE graph_instances SET is_latest = 0 WHERE instance_id = ? AND version = ?`,
  setStatus: `UPDATE graph_instances SET status = ?, updated_at = ? WHERE instance_id = ? AND version = ?`,
  setAttrs: `UPDATE graph_instances SET attrs = ?, updated_at = ? WHERE instance_id = ? AND version = ?`,
  // State is saved with every node invocation: it does not move the instance in "latest" listings.
  saveState: `UPDATE graph_instances SET state = ? WHERE instance_id = ? AND +is_latest = 1`,
  loadState: `SELECT state FROM graph_instances WHERE instance_id = ? AND +is_latest = 1`,
  recordOutput: `UPDATE graph_io_records SET output = ? WHERE instance_id = ? AND version = ?`,
  exists: `SELECT 1 FROM graph_instances WHERE instance_id = ? LIMIT 1`,
  ioRecords: `SELECT instance_id, version, input, output FROM graph_io_records WHERE instance_id = ? ORDER BY version`,
  list: `SELECT ${COLUMNS} FROM graph_instances WHERE is_latest = 1
    ORDER BY updated_at DESC, instance_id DESC LIMIT ?`,
  listByStatus: `SELECT ${COLUMNS} FROM graph_instances WHERE is_latest = 1 AND status = ?
    ORDER BY updated_at DESC, instance_id DESC LIMIT ?`,
} as const;

const setStatusSql = new Map<string, string>();

/**
 * The compare-and-swap of the latest row's status to `to`, from the statuses that may precede it;
 * `withState` sets the state too, `withMark` the ledger's low-water mark (parameters: status,
 * updated_at, state, mark, instance_id).
 */
function setStatusFrom(to: InstanceStatus, from: readonly InstanceStatus[] | undefined, withState: boolean, withMark: boolean): string {
  const key = `${from ? `${to}<${from.join()}` : to}${withState ? "+state" : ""}${withMark ? "+mark" : ""}`;
  let sql = setStatusSql.get(key);
  if (!sql) {
    const allowed = INSTANCE_STATUSES.filter((s) => canTransition(s, to) && (!from || from.includes(s)));
    sql = `UPDATE graph_instances SET status = ?, updated_at = ?${withState ? ", state = ?" : ""}${withMark ? ", deliver_low_water = ?" : ""}
      WHERE instance_id = ? AND +is_latest = 1 AND status IN (${allowed.map((s) => `'${s}'`).join(", ") || "NULL"})`;
    setStatusSql.set(key, sql);
  }
  return sql;
}

/**
 * GraphInstanceStore on SQLite: one `graph_instances` row per run version, `is_latest` marking the one
 * `load`, `list`, state and attrs address. Every multi-statement change runs in one transaction.
 */
export class SqliteGraphInstanceStore implements GraphInstanceStore {
  /**
   * The state JSON this store last wrote per instance, so a node that left the state as it was costs no
   * write. Only valid while this store is the instance's one writer (one executor per instance): it is
   * dropped at every status change, so a run resumed after a pause writes its state afresh.
   */
  private readonly written = new Map<string, string>();
  private readonly records: InstanceRecords;
  private readonly pendingStates: PendingStates;

  /** Runs refused further writes after a storage failure (see run-fence.ts). */
  private readonly fenced: ReadonlySet<string>;

  constructor(private readonly db: Database) {
    this.fenced = fencedRuns(db);
    this.records = new InstanceRecords(db);
    this.pendingStates = new PendingStates(db, {
      write: (instanceId, json) => this.run(SQL.saveState, json, instanceId),
      dropped: (instanceId) => this.written.delete(instanceId),
    });
  }

  /**
   * Saves the state JSON unless it is what this store last wrote: held for the deferred transaction
   * (see PendingStates), else written in the caller's transaction. True when it was not what this store
   * last wrote (the state changed, or the store does not know).
   */
  saveStateJson(instanceId: string, json: string): boolean {
    if (this.written.get(instanceId) === json) return false;
    if (!this.pendingStates.hold(instanceId, json)) this.writeState(instanceId, json);
    this.written.set(instanceId, json);
    return true;
  }

  /** Writes `json` now: an older state still held for the instance is dropped, or it would win later. */
  private writeState(instanceId: string, json: string) {
    this.pendingStates.take(instanceId);
    return statement(this.db, SQL.saveState).run(json, instanceId);
  }

  /** Writes may have been rolled back: the next save of each instance writes whatever it is. */
  forgetStates(): void {
    this.written.clear();
  }

  create(args: CreateInstanceArgs): GraphInstanceRecord {
    const instanceId = args.instanceId ?? newSnowflake();
    const now = Date.now();
    const nodeIdMap = toJson(args.nodeIdMap);
    const attrs = toJson(args.attrs ?? {});
    const input = toJson(args.input);
    // Committed with the run's first node: no one can know the id before create returns.
    commitWithRun(this.db, () => {
      // Every instance keeps its version 1 row: the primary key refuses an existing id, no lookup first.
      try {
        this.run(SQL.insert, instanceId, 1, args.graphName, args.specId ?? null, nodeIdMap, attrs, now, now);
      } catch (error) {
        if ((error as { code?: unknown }).code === "SQLITE_CONSTRAINT_PRIMARYKEY") throw new InstanceStateError(instanceId, "existing", "created");
        throw error;
      }
      this.run(SQL.insertIo, instanceId, 1, input);
    });
    trackNewInstance(this.db, instanceId);
    trackNewLedger(this.db, instanceId);
    trackInvocationStatuses(this.db, instanceId);
    return this.records.fromRow({
      instance_id: instanceId,
      version: 1,
      status: "running",
      graph_name: args.graphName,
      spec_id: args.specId ?? null,
      node_id_map: nodeIdMap,
      attrs,
      created_at: now,
      updated_at: now,
    });
  }

  beginInvocation(instanceId: string, input: GraphPayload): GraphInstanceRecord {
    assertUnfenced(this.fenced, instanceId);
    return commitWith(this.db, () => {
      const latest = this.latestRow(instanceId);
      const now = Date.now();
      if (latest.status === "running") this.run(SQL.setStatus, "crashed", now, instanceId, latest.version);
      this.run(SQL.retire, instanceId, latest.version);
      const version = latest.version + 1;
      this.forgetRun(instanceId);
      this.run(SQL.insertVersion, instanceId, version, latest.graph_name, latest.spec_id, latest.node_id_map, latest.attrs, now, now, instanceId, latest.version);
      this.run(SQL.insertIo, instanceId, version, toJson(input));
      return this.records.fromRow({ ...latest, version, status: "running", created_at: now, updated_at: now });
    });
  }

  load(instanceId: string): GraphInstanceRecord | null {
    return this.records.latest(instanceId);
  }

  loadVersion(instanceId: string, version: number): GraphInstanceRecord | null {
    const row = this.get(SQL.version, instanceId, version) as InstanceRow | undefined;
    return row ? this.records.fromRow(row) : null;
  }

  versions(instanceId: string): GraphInstanceRecord[] {
    return (statement(this.db, SQL.versions).all(instanceId) as InstanceRow[]).map(toRecord);
  }

  /**
   * Durable when it returns, as the status someone may announce — except a (re)start to running, which
   * commits with the run's first node: a crash before that leaves the instance paused or crashed, as
   * if the resume had not been asked. A compare-and-swap, then the row is read for the record (an
   * UPDATE ... RETURNING costs more here: SQLite runs it through an ephemeral table).
   */
  transition(instanceId: string, to: InstanceStatus, from?: readonly InstanceStatus[]): GraphInstanceRecord {
    assertUnfenced(this.fenced, instanceId);
    // A state saved in this transaction and still held is written by the status change's own UPDATE.
    const state = this.pendingStates.take(instanceId);
    let ran = false;
    const change = () => {
      ran = true;
      return this.changeStatus(instanceId, to, from, state);
    };
    let done;
    try {
      done = (to === "running" ? commitWithRun : commitWith)(this.db, change, { oneWrite: true });
    } catch (error) {
      // Failed before the change ran (writing other held steps): the state is held again, as it was.
      if (!ran && state !== undefined && !this.pendingStates.hold(instanceId, state)) this.written.delete(instanceId);
      throw error;
    }
    const { record, sampled } = done;
    this.written.delete(instanceId);
    // Only this connection's pause parks memory, and its other status changes forget it: a start to
    // running from any status may take back what is parked.
    if (to === "paused") parkRunMemory(this.db, instanceId, sampled);
    else if (to === "running") unparkRunMemory(this.db, instanceId, sampled);
    else this.forgetRun(instanceId);
    return record;
  }

  updateAttrs(instanceId: string, attrs: Record<string, unknown>, { touch = true }: UpdateAttrsOptions = {}): void {
    commitWith(this.db, () => {
      const latest = this.latestRow(instanceId);
      const merged = { ...(JSON.parse(latest.attrs) as Record<string, unknown>), ...attrs };
      this.run(SQL.setAttrs, toJson(merged), touch ? Date.now() : latest.updated_at, instanceId, latest.version);
    });
  }

  /**
   * Deferred: the status change that follows a checkpoint (pause, completion) commits it. A state equal
   * to what this store last wrote for the instance (the last node's completion saved it) is not written.
   */
  saveState(instanceId: string, state: unknown): void {
    assertUnfenced(this.fenced, instanceId);
    const json = toJson(state);
    if (this.written.get(instanceId) === json) return;
    // Held only for an instance known to exist: a missing one must fail here.
    if (!this.records.exists(instanceId) || !this.pendingStates.hold(instanceId, json)) {
      if (deferWith(this.db, () => this.writeState(instanceId, json)).changes === 0) throw new InstanceNotFoundError(instanceId);
    }
    this.written.set(instanceId, json);
  }

  loadState(instanceId: string): unknown | null {
    flushPendingWrites(this.db);
    const row = this.get(SQL.loadState, instanceId) as { state: string | null } | undefined;
    return row?.state == null ? null : JSON.parse(row.state);
  }

  /** Deferred, as `saveState`: the run's final status change commits it. */
  recordOutput(instanceId: string, version: number, output: readonly GraphPayload[]): void {
    assertUnfenced(this.fenced, instanceId);
    const json = toJson(output);
    if (deferWith(this.db, () => this.run(SQL.recordOutput, json, instanceId, version)).changes > 0) return;
    if (!this.get(SQL.exists, instanceId)) throw new InstanceNotFoundError(instanceId);
  }

  ioRecords(instanceId: string): GraphIORecord[] {
    const rows = statement(this.db, SQL.ioRecords).all(instanceId) as Array<{
      instance_id: string;
      version: number;
      input: string;
      output: string | null;
    }>;
    return rows.map((r) => ({
      instanceId: r.instance_id,
      version: r.version,
      input: JSON.parse(r.input) as GraphPayload,
      output: r.output === null ? null : (JSON.parse(r.output) as GraphPayload[]),
    }));
  }

  list(args: ListInstancesArgs = {}): GraphInstanceRecord[] {
    const limit = args.limit ?? 50;
    const rows = args.status
      ? statement(this.db, SQL.listByStatus).all(args.status, limit)
      : statement(this.db, SQL.list).all(limit);
    return (rows as InstanceRow[]).map(toRecord);
  }

  /**
   * The instance changed status or version (it may be run elsewhere next): what this connection keeps
   * in memory of its run — the state it last wrote, version chains, the mirrored ledger — is dropped.
   */
  private forgetRun(instanceId: string): void {
    this.written.delete(instanceId);
    forgetRunMemory(this.db, instanceId);
  }

  /** The compare-and-swap (with the held `state`, if any), then the record and, for memory, the data version. */
  private changeStatus(instanceId: string, to: InstanceStatus, from: readonly InstanceStatus[] | undefined, state: string | undefined) {
    let changed: number;
    try {
      // The mirrored ledger of the run that changes status, if any, says how far its low-water mark
      // rose: the status change writes it, the row being rewritten anyway (a start to running has
      // none live yet, and keeps the mark its last pause or end wrote).
      const ledger = to === "running" ? undefined : knownLedger(this.db, instanceId);
      const update = statement(this.db, setStatusFrom(to, from, state !== undefined, ledger !== undefined));
      const params: unknown[] = [to, Date.now()];
      if (state !== undefined) params.push(state);
      if (ledger) params.push(lowWaterOf(ledger));
      params.push(instanceId);
      changed = update.run(...params).changes;
    } catch (error) {
      this.writeTakenState(instanceId, state);
      throw error;
    }
    if (changed === 0) {
      // The state was saved whatever becomes of the status.
      this.writeTakenState(instanceId, state);
      throw new InstanceStateError(instanceId, this.latestRow(instanceId).status, to);
    }
    const record = this.records.latest(instanceId)!;
    // Sampled inside the transaction: no other connection can commit before it does.
    const sampled = to === "paused" || to === "running" ? dataVersion(this.db) : 0;
    return { record, sampled };
  }

  /** Writes a state taken from the held ones, when the status change that was to write it did not. */
  private writeTakenState(instanceId: string, state: string | undefined): void {
    if (state !== undefined && this.db.inTransaction) this.run(SQL.saveState, state, instanceId);
  }

  private latestRow(instanceId: string): InstanceRow {
    const row = this.records.latestRow(instanceId);
    if (!row) throw new InstanceNotFoundError(instanceId);
    return row;
  }

  private get(sql: string, ...params: unknown[]): unknown {
    return statement(this.db, sql).get(...params);
  }

  private run(sql: string, ...params: unknown[]) {
    return statement(this.db, sql).run(...params);
  }
}
