import { InstanceNotFoundError, InstanceStateError } from "@/server/graph/errors";
import { newSnowflake } from "@/server/graph/ids";
import type { GraphPayload } from "@/server/graph/payload";
import { KeyedChain } from "@/server/graph/keyed-chain";
import type { CreateInstanceArgs, GraphInstanceStore, ListInstancesArgs, UpdateAttrsOptions } from "@/server/graph/persistence/instance-store";
import {
  canTransition,
  INSTANCE_STATUSES,
  type GraphInstanceRecord,
  type GraphIORecord,
  type InstanceStatus,
} from "@/server/graph/persistence/records";
import { inTransaction, isUniqueViolation, toJson, toJsonb, toTimestamp, type PgStoreConnections, type PgQueryable } from "./pg-database";

/** A `graph_instances` row as read with INSTANCE_COLUMNS. */
export interface InstanceRow {
  instance_id: string;
  version: number;
  status: InstanceStatus;
  graph_name: string;
  spec_id: string | null;
  node_id_map: Record<string, string>;
  attrs: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

/** The columns `toInstanceRecord` reads. */
export const INSTANCE_COLUMNS = "instance_id, version, status, graph_name, spec_id, node_id_map, attrs, created_at, updated_at";

const SQL = {
  create: `WITH made AS (
      INSERT INTO graph_instances
        (instance_id, version, is_latest, status, graph_name, spec_id, node_id_map, attrs, state, created_at, updated_at)
      VALUES ($1, 1, true, 'running', $2, $3, $4::jsonb, $5::jsonb, NULL, $6::timestamptz, $6::timestamptz)
      RETURNING instance_id)
    INSERT INTO graph_io_records (instance_id, version, input, output) SELECT instance_id, 1, $7::json, NULL FROM made`,
  latest: `SELECT ${INSTANCE_COLUMNS} FROM graph_instances WHERE instance_id = $1 AND is_latest`,
  latestForUpdate: `SELECT ${INSTANCE_COLUMNS} FROM graph_instances WHERE instance_id = $1 AND is_latest FOR UPDATE`,
  version: `SELECT ${INSTANCE_COLUMNS} FROM graph_instances WHERE instance_id = $1 AND version = $2`,
  versions: `SELECT ${INSTANCE_COLUMNS} FROM graph_instances WHERE instance_id = $1 ORDER BY version`,
  crashAndRetire: `UPDATE graph_instances
    SET is_latest = false, status = CASE WHEN status = 'running' THEN 'crashed' ELSE status END,
        updated_at = CASE WHEN status = 'running' THEN $3::timestamptz ELSE updated_at END
    WHERE instance_id = $1 AND version = $2`,
  insertVersion: `INSERT INTO graph_instances
      (instance_id, version, is_latest, status, graph_name, spec_id, node_id_map, attrs, state, created_at, updated_at)
    SELECT instance_id, $2, true, 'running', graph_name, spec_id, node_id_map, attrs, NULL, $3::timestamptz, $3::timestamptz
    FROM graph_instances WHERE instance_id = $1 AND version = $2 - 1`,
  insertIo: `INSERT INTO graph_io_records (instance_id, version, input, output) VALUES ($1, $2, $3::json, NULL)`,
  /** Compare-and-swap of the latest version's status, from any of the statuses in $4. */
  transition: `UPDATE graph_instances SET status = $2, updated_at = $3::timestamptz
    WHERE instance_id = $1 AND is_latest AND status = ANY($4::text[]) RETURNING ${INSTANCE_COLUMNS}`,
  /**
   * `transition` that also writes the run's held state ($5, when not null) and output ($7 of version
   * $6, when not null): one statement. The output is written whether or not the status changes, as a
   * `recordOutput` before it would have been; the state only with the status (the caller writes it
   * apart when the compare-and-swap loses).
   */
  transitionWithRunWrites: `WITH io AS (
      UPDATE graph_io_records SET output = $7::json WHERE instance_id = $1 AND version = $6 AND $7::json IS NOT NULL)
    UPDATE graph_instances SET status = $2, updated_at = $3::timestamptz, state = coalesce($5::json, state)
    WHERE instance_id = $1 AND is_latest AND status = ANY($4::text[]) RETURNING ${INSTANCE_COLUMNS}`,
  statusOf: `SELECT status FROM graph_instances WHERE instance_id = $1 AND is_latest`,
  mergeAttrs: `UPDATE graph_instances SET attrs = attrs || $2::jsonb, updated_at = coalesce($3::timestamptz, updated_at)
    WHERE instance_id = $1 AND is_latest`,
  saveState: `UPDATE graph_instances SET state = $2::json WHERE instance_id = $1 AND is_latest`,
  loadState: `SELECT state FROM graph_instances WHERE instance_id = $1 AND is_latest`,
  recordOutput: `UPDATE graph_io_records SET output = $3::json WHERE instance_id = $1 AND version = $2`,
  exists: `SELECT 1 FROM graph_instances WHERE instance_id = $1 LIMIT 1`,
  ioRecords: `SELECT instance_id, version, input, output FROM graph_io_records WHERE instance_id = $1 ORDER BY version`,
  list: `SELECT ${INSTANCE_COLUMNS} FROM graph_instances WHERE is_latest
    ORDER BY updated_at DESC, instance_id DESC LIMIT $1`,
  listByStatus: `SELECT ${INSTANCE_COLUMNS} FROM graph_instances WHERE is_latest AND status = $2
    ORDER BY updated_at DESC, instance_id DESC LIMIT $1`,
} as const;

/** Prepared once per connection under its key's name. */
const q = (name: keyof typeof SQL, values: unknown[]) => ({ name: `modex_instance_${name}`, text: SQL[name], values });

export function toInstanceRecord(r: InstanceRow): GraphInstanceRecord {
  return {
    instanceId: r.instance_id,
    version: r.version,
    graphName: r.graph_name,
    specId: r.spec_id,
    status: r.status,
    nodeIdMap: Object.freeze(r.node_id_map),
    attrs: r.attrs,
    createdAt: r.created_at.getTime(),
    updatedAt: r.updated_at.getTime(),
  };
}

/** A run's state save and output not written yet (see PgGraphInstanceStore.holdRunWrites). */
interface HeldRunWrites {
  state?: string;
  output?: { version: number; json: string };
}

/** The statuses a transition to `to` may come from, narrowed by the caller's `from`. */
const predecessors = (to: InstanceStatus, from?: readonly InstanceStatus[]): InstanceStatus[] =>
  INSTANCE_STATUSES.filter((s) => canTransition(s, to) && (!from || from.includes(s)));

/**
 * GraphInstanceStore on PostgreSQL: one `graph_instances` row per run version, `is_latest` marking the
 * one `load`, `list`, state and attrs address. Creation, version changes, status changes and attrs are
 * acknowledged changes: committed synchronously (`db.acks`) before they return. State saves and outputs
 * are run steps (`db.steps`, or held for the status change that follows them: holdRunWrites): the status
 * change that ends or parks the run flushes them to disk.
 */
export class PgGraphInstanceStore implements GraphInstanceStore {
  /** Held state saves and outputs by instance; null: written at once (see holdRunWrites). */
  private held: Map<string, HeldRunWrites> | null = null;
  /** Per instance, the write of what was held, while it runs (a status change waits for it). */
  private readonly writing = new KeyedChain();

  constructor(private readonly db: PgStoreConnections) {}

  /**
   * From now on a state save and an output (run steps: promised by nothing until the status change
   * that ends or parks the run commits) are held in memory and written in that status change's own
   * statement: a run's end costs one statement instead of three. For a store that writes through pools
   * for runs its owner holds (a worker's, under the instances' leases), whose owner calls `writeHeld()`
   * when a run ends. What is held is written with the instance's next status change (one statement),
   * or before a read of its state or outputs or a new version of it, so every held write commits
   * before, or with, the status change after it, whose commit is synchronous. A crash while a write is
   * held loses it, as a crash just before an unheld one would: nothing was acknowledged, and recovery
   * runs from the last commit. Not for a store bound to one transaction's client: its writes commit
   * together anyway.
   */
  holdRunWrites(): void {
    this.held ??= new Map();
  }

  async create(args: CreateInstanceArgs): Promise<GraphInstanceRecord> {
    const instanceId = args.instanceId ?? newSnowflake();
    const now = Date.now();
    const nodeIdMap = toJson(args.nodeIdMap);
    const attrs = args.attrs ?? {};
    try {
      await this.db.acks.query(
        q("create", [instanceId, args.graphName, args.specId ?? null, nodeIdMap, toJsonb(attrs), toTimestamp(now), toJson(args.input)]),
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw new InstanceStateError(instanceId, "existing", "created");
      throw error;
    }
    return {
      instanceId,
      version: 1,
      graphName: args.graphName,
      specId: args.specId ?? null,
      status: "running",
      nodeIdMap: Object.freeze(JSON.parse(nodeIdMap) as Record<string, string>),
      attrs: JSON.parse(toJsonb(attrs)) as Record<string, unknown>,
      createdAt: now,
      updatedAt: now,
    };
  }

  /** Retires the latest version (marking it crashed if it was still running) and opens the next, atomically. */
  async beginInvocation(instanceId: string, input: GraphPayload): Promise<GraphInstanceRecord> {
    await this.writeHeld(instanceId); // the state belongs to the version it retires
    return inTransaction(this.db.acks, async (tx) => {
      const latest = await this.latestRow(tx, instanceId, true);
      const now = Date.now();
      const version = latest.version + 1;
      await tx.query(q("crashAndRetire", [instanceId, latest.version, toTimestamp(now)]));
      await tx.query(q("insertVersion", [instanceId, version, toTimestamp(now)]));
      await tx.query(q("insertIo", [instanceId, version, toJson(input)]));
      return toInstanceRecord({ ...latest, version, status: "running", created_at: new Date(now), updated_at: new Date(now) });
    });
  }

  async load(instanceId: string): Promise<GraphInstanceRecord | null> {
    const { rows } = await this.db.acks.query<InstanceRow>(q("latest", [instanceId]));
    return rows.length > 0 ? toInstanceRecord(rows[0]) : null;
  }

  /**
   * The latest version, its row locked until the caller's transaction ends (`db.acks` must be a
   * transaction's client): a check made on it holds until the commit, whoever else writes the row.
   */
  async loadForUpdate(instanceId: string): Promise<GraphInstanceRecord | null> {
    const { rows } = await this.db.acks.query<InstanceRow>(q("latestForUpdate", [instanceId]));
    return rows.length > 0 ? toInstanceRecord(rows[0]) : null;
  }

  async loadVersion(instanceId: string, version: number): Promise<GraphInstanceRecord | null> {
    const { rows } = await this.db.acks.query<InstanceRow>(q("version", [instanceId, version]));
    return rows.length > 0 ? toInstanceRecord(rows[0]) : null;
  }

  async versions(instanceId: string): Promise<GraphInstanceRecord[]> {
    const { rows } = await this.db.acks.query<InstanceRow>(q("versions", [instanceId]));
    return rows.map(toInstanceRecord);
  }

  /**
   * A compare-and-swap on the latest version, durable when it returns (a synchronous commit), with the
   * state save and output held for it (holdRunWrites).
   */
  async transition(instanceId: string, to: InstanceStatus, from?: readonly InstanceStatus[]): Promise<GraphInstanceRecord> {
    await this.writing.settled(instanceId);
    const held = this.take(instanceId);
    const args = [instanceId, to, toTimestamp(Date.now()), predecessors(to, from)];
    const { rows } = held
      ? await this.db.acks.query<InstanceRow>(q("transitionWithRunWrites", [...args, held.state ?? null, held.output?.version ?? null, held.output?.json ?? null]))
      : await this.db.acks.query<InstanceRow>(q("transition", args));
    if (rows.length > 0) return toInstanceRecord(rows[0]);
    if (held?.state !== undefined) await this.writeState(instanceId, held.state); // saved before the refused change, as unheld
    const current = await this.db.acks.query<{ status: InstanceStatus }>(q("statusOf", [instanceId]));
    if (current.rows.length === 0) throw new InstanceNotFoundError(instanceId);
    throw new InstanceStateError(instanceId, current.rows[0].status, to);
  }

  async updateAttrs(instanceId: string, attrs: Record<string, unknown>, { touch = true }: UpdateAttrsOptions = {}): Promise<void> {
    const { rowCount } = await this.db.acks.query(q("mergeAttrs", [instanceId, toJsonb(attrs), touch ? toTimestamp(Date.now()) : null]));
    if (!rowCount) throw new InstanceNotFoundError(instanceId);
  }

  saveState(instanceId: string, state: unknown): Promise<void> | void {
    const json = toJson(state);
    if (this.hold(instanceId, (h) => (h.state = json))) return;
    return this.writeState(instanceId, json);
  }

  private async writeState(instanceId: string, json: string): Promise<void> {
    const { rowCount } = await this.db.steps.query(q("saveState", [instanceId, json]));
    if (!rowCount) throw new InstanceNotFoundError(instanceId);
  }

  async loadState(instanceId: string): Promise<unknown | null> {
    await this.writeHeld(instanceId);
    const { rows } = await this.db.acks.query<{ state: unknown }>(q("loadState", [instanceId]));
    return rows[0]?.state ?? null;
  }

  recordOutput(instanceId: string, version: number, output: readonly GraphPayload[]): Promise<void> | void {
    const json = toJson(output);
    if (this.hold(instanceId, (h) => (h.output = { version, json }))) return;
    return this.writeOutput(instanceId, version, json);
  }

  private async writeOutput(instanceId: string, version: number, json: string): Promise<void> {
    const { rowCount } = await this.db.steps.query(q("recordOutput", [instanceId, version, json]));
    if (rowCount) return;
    const exists = await this.db.acks.query(q("exists", [instanceId]));
    if (exists.rows.length === 0) throw new InstanceNotFoundError(instanceId);
  }

  async ioRecords(instanceId: string): Promise<GraphIORecord[]> {
    await this.writeHeld(instanceId);
    const { rows } = await this.db.acks.query<{ instance_id: string; version: number; input: GraphPayload; output: GraphPayload[] | null }>(
      q("ioRecords", [instanceId]),
    );
    return rows.map((r) => ({ instanceId: r.instance_id, version: r.version, input: r.input, output: r.output }));
  }

  async list(args: ListInstancesArgs = {}): Promise<GraphInstanceRecord[]> {
    const limit = args.limit ?? 50;
    const { rows } = args.status
      ? await this.db.acks.query<InstanceRow>(q("listByStatus", [limit, args.status]))
      : await this.db.acks.query<InstanceRow>(q("list", [limit]));
    return rows.map(toInstanceRecord);
  }

  /** Holds a write (holdRunWrites); false when this store writes at once. */
  private hold(instanceId: string, set: (held: HeldRunWrites) => void): boolean {
    if (!this.held) return false;
    let held = this.held.get(instanceId);
    if (!held) this.held.set(instanceId, (held = {}));
    set(held);
    return true;
  }

  private take(instanceId: string): HeldRunWrites | undefined {
    const held = this.held?.get(instanceId);
    if (held) this.held!.delete(instanceId);
    return held;
  }

  /**
   * Writes what is held for `instanceId` (state, then output), or for every instance when none is
   * given, and waits for such writes in progress. What is held is taken first: a failed write is told
   * to this caller and not tried again.
   */
  writeHeld(instanceId?: string): Promise<void> {
    if (instanceId === undefined) {
      const ids = new Set([...(this.held?.keys() ?? []), ...this.writing.keys()]);
      return Promise.all([...ids].map((id) => this.writeHeld(id))).then(() => undefined);
    }
    const held = this.take(instanceId);
    if (!held) return this.writing.settled(instanceId);
    return this.writing.run(instanceId, async () => {
      if (held.state !== undefined) await this.writeState(instanceId, held.state);
      if (held.output) await this.writeOutput(instanceId, held.output.version, held.output.json);
    });
  }

  private async latestRow(tx: PgQueryable, instanceId: string, forUpdate: boolean): Promise<InstanceRow> {
    const { rows } = await tx.query<InstanceRow>(q(forUpdate ? "latestForUpdate" : "latest", [instanceId]));
    if (rows.length === 0) throw new InstanceNotFoundError(instanceId);
    return rows[0];
  }
}
