import { InvocationStateError } from "@/server/graph/errors";
import { newSnowflake } from "@/server/graph/ids";
import type { BeginInvocationArgs, NodeStateStore } from "@/server/graph/persistence/node-state-store";
import type { InvocationStatus, NodeInvocation } from "@/server/graph/persistence/records";
import { commitWith, flushPendingWrites, statement, type Database } from "./graph-database";
import { knownChains, noteBegun, noteCompleted } from "./invocation-chains";

interface InvocationRow {
  invocation_id: string;
  instance_id: string;
  node_id: string;
  node_name: string;
  version: number;
  parent_version: number | null;
  status: InvocationStatus;
  started_at: number;
  ended_at: number | null;
  error: string | null;
}

const COLUMNS = "invocation_id, instance_id, node_id, node_name, version, parent_version, status, started_at, ended_at, error";

// Begin order is (started_at, invocation_id): Snowflake ids increase strictly within a process.
const BEGIN_ORDER = "ORDER BY started_at, invocation_id";

export const INVOCATION_SQL = {
  /** version = max + 1, parent = latest COMPLETED version, read and written in one statement. */
  insert: `INSERT INTO node_invocations (${COLUMNS})
    SELECT ?, ?, ?, ?, coalesce(max(version), 0) + 1, max(CASE WHEN status = 'COMPLETED' THEN version END),
      'RUNNING', ?, NULL, NULL
    FROM node_invocations WHERE instance_id = ? AND node_id = ?
    RETURNING version, parent_version`,
  /** The same with the chain known in memory (invocation-chains.ts). */
  insertAt: `INSERT INTO node_invocations (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, 'RUNNING', ?, NULL, NULL)`,
  /** A begun invocation written late, RUNNING or straight in its final status (pending-begins.ts). */
  insertAs: `INSERT INTO node_invocations (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  finish: `UPDATE node_invocations SET status = ?, ended_at = ?, error = ?
    WHERE invocation_id = ? AND status = 'RUNNING' RETURNING ${COLUMNS}`,
  /** The hot-path completion: compare-and-swap from RUNNING, nothing read back. */
  complete: `UPDATE node_invocations SET status = 'COMPLETED', ended_at = ? WHERE invocation_id = ? AND status = 'RUNNING'`,
  statusOf: `SELECT status FROM node_invocations WHERE invocation_id = ?`,
  get: `SELECT ${COLUMNS} FROM node_invocations WHERE invocation_id = ?`,
  running: `SELECT ${COLUMNS} FROM node_invocations WHERE instance_id = ? AND status = 'RUNNING' ${BEGIN_ORDER}`,
  history: `SELECT ${COLUMNS} FROM node_invocations WHERE instance_id = ? AND node_id = ? ORDER BY version`,
  byInstance: `SELECT ${COLUMNS} FROM node_invocations WHERE instance_id = ? ${BEGIN_ORDER}`,
} as const;

const toInvocation = (r: InvocationRow): NodeInvocation => ({
  invocationId: r.invocation_id,
  instanceId: r.instance_id,
  nodeId: r.node_id,
  nodeName: r.node_name,
  version: r.version,
  parentVersion: r.parent_version,
  status: r.status,
  startedAt: r.started_at,
  endedAt: r.ended_at,
  error: r.error,
});

/**
 * The RUNNING invocation a begin creates, numbered from the version chain in memory, not yet written;
 * null when the chain is not known here and the table must number it (`insertInvocation`).
 */
export function planInvocation(db: Database, args: BeginInvocationArgs): NodeInvocation | null {
  const chains = knownChains(db, args.instanceId);
  if (!chains) return null;
  const chain = chains.get(args.nodeId);
  const version = (chain?.last ?? 0) + 1;
  noteBegun(chains, args.nodeId, version);
  return {
    invocationId: newSnowflake(),
    instanceId: args.instanceId,
    nodeId: args.nodeId,
    nodeName: args.nodeName,
    version,
    parentVersion: chain?.completed ?? null,
    status: "RUNNING",
    startedAt: Date.now(),
    endedAt: null,
    error: null,
  };
}

/**
 * Inserts a RUNNING invocation: version = max + 1 and parentVersion = the latest COMPLETED version of
 * the same (instance, node) chain, in one statement (the unique (instance, node, version) index refuses
 * a version two writers computed at once) — or from the chain in memory, for an instance this
 * connection created and is running.
 */
export function insertInvocation(db: Database, args: BeginInvocationArgs): NodeInvocation {
  const planned = planInvocation(db, args);
  if (planned) {
    statement(db, INVOCATION_SQL.insertAt).run(
      planned.invocationId,
      planned.instanceId,
      planned.nodeId,
      planned.nodeName,
      planned.version,
      planned.parentVersion,
      planned.startedAt,
    );
    return planned;
  }
  const invocationId = newSnowflake();
  const startedAt = Date.now();
  const head = statement(db, INVOCATION_SQL.insert).get(
    invocationId,
    args.instanceId,
    args.nodeId,
    args.nodeName,
    startedAt,
    args.instanceId,
    args.nodeId,
  ) as { version: number; parent_version: number | null };
  return {
    invocationId,
    instanceId: args.instanceId,
    nodeId: args.nodeId,
    nodeName: args.nodeName,
    version: head.version,
    parentVersion: head.parent_version,
    status: "RUNNING",
    startedAt,
    endedAt: null,
    error: null,
  };
}

/** Raises the InvocationStateError a failed compare-and-swap on `invocationId` means. */
export function lostInvocationRace(db: Database, invocationId: string): never {
  const row = statement(db, INVOCATION_SQL.statusOf).get(invocationId) as { status: InvocationStatus } | undefined;
  throw new InvocationStateError(invocationId, "RUNNING", row?.status);
}

/**
 * Compare-and-swap RUNNING → `to`, answering the invocation as it now is; call inside the caller's
 * transaction. A lost race raises the InvocationStateError it means.
 */
export function finishInvocation(db: Database, id: string, to: InvocationStatus, error: string | null): NodeInvocation {
  const row = statement(db, INVOCATION_SQL.finish).get(to, Date.now(), error, id) as InvocationRow | undefined;
  if (!row) return lostInvocationRace(db, id);
  const invocation = toInvocation(row);
  if (to === "COMPLETED") noteCompleted(db, invocation);
  return invocation;
}

/** NodeStateStore on SQLite: version chains per (instance, node), compare-and-swap out of RUNNING. */
export class SqliteNodeStateStore implements NodeStateStore {
  constructor(private readonly db: Database) {}

  begin(args: BeginInvocationArgs): NodeInvocation {
    return commitWith(this.db, () => insertInvocation(this.db, args));
  }

  complete(id: string) {
    return this.finish(id, "COMPLETED", null);
  }
  cancel(id: string, reason: string) {
    return this.finish(id, "CANCELLED", reason);
  }
  fail(id: string, error: string) {
    return this.finish(id, "FAILED", error);
  }
  markCrashed(id: string) {
    return this.finish(id, "CRASHED", null);
  }

  get(id: string): NodeInvocation | null {
    flushPendingWrites(this.db);
    const row = statement(this.db, INVOCATION_SQL.get).get(id) as InvocationRow | undefined;
    return row ? toInvocation(row) : null;
  }

  listRunning(instanceId: string): NodeInvocation[] {
    flushPendingWrites(this.db);
    return (statement(this.db, INVOCATION_SQL.running).all(instanceId) as InvocationRow[]).map(toInvocation);
  }

  history(instanceId: string, nodeId: string): NodeInvocation[] {
    flushPendingWrites(this.db);
    return (statement(this.db, INVOCATION_SQL.history).all(instanceId, nodeId) as InvocationRow[]).map(toInvocation);
  }

  listByInstance(instanceId: string): NodeInvocation[] {
    flushPendingWrites(this.db);
    return (statement(this.db, INVOCATION_SQL.byInstance).all(instanceId) as InvocationRow[]).map(toInvocation);
  }

  private finish(id: string, to: InvocationStatus, error: string | null): NodeInvocation {
    return commitWith(this.db, () => finishInvocation(this.db, id, to, error), { oneWrite: true });
  }
}
