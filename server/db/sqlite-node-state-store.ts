import { InvocationStateError } from "@/server/graph/errors";
import { newSnowflake } from "@/server/graph/ids";
import type { BeginInvocationArgs, NodeStateStore } from "@/server/graph/persistence/node-state-store";
import type { InvocationStatus, NodeInvocation } from "@/server/graph/persistence/records";
import { type Database } from "./graph-database";
import { statement } from "./sqlite-statements";
import { commitWith, flushPendingWrites } from "./deferred-transaction";
import { knownChains, noteBegun, noteCompleted, trackInstance } from "./invocation-chains";
import { knownNoneRunning, noteInvocationStatus } from "./invocation-statuses";

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

// An invocation id is its instance's id, a dot, and a Snowflake: the table (keyed by id alone) keeps an
// instance's invocations together, in begin order, and an instance's are a range of it — no second
// index for every node commit to write. `instance_id = ?` guards against an id that merely starts alike.
const OF_INSTANCE = "invocation_id > ? AND invocation_id < ? AND instance_id = ?";

/** The range arguments of OF_INSTANCE. */
export const instanceRange = (instanceId: string): [string, string, string] => [`${instanceId}.`, `${instanceId}/`, instanceId];

export const newInvocationId = (instanceId: string): string => `${instanceId}.${newSnowflake()}`;

export const INVOCATION_SQL = {
  /** Each node's chain head: its last version and its latest COMPLETED one. */
  chains: `SELECT node_id, max(version) AS last, max(CASE WHEN status = 'COMPLETED' THEN version END) AS completed
    FROM node_invocations WHERE ${OF_INSTANCE} GROUP BY node_id`,
  insertAt: `INSERT INTO node_invocations (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, 'RUNNING', ?, NULL, NULL)`,
  /** A begun invocation written late, RUNNING or straight in its final status (pending-begins.ts). */
  insertAs: `INSERT INTO node_invocations (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  finish: `UPDATE node_invocations SET status = ?, ended_at = ?, error = ?
    WHERE invocation_id = ? AND status = 'RUNNING' RETURNING ${COLUMNS}`,
  /** The hot-path completion: compare-and-swap from RUNNING, nothing read back. */
  complete: `UPDATE node_invocations SET status = 'COMPLETED', ended_at = ? WHERE invocation_id = ? AND status = 'RUNNING'`,
  statusOf: `SELECT status FROM node_invocations WHERE invocation_id = ?`,
  get: `SELECT ${COLUMNS} FROM node_invocations WHERE invocation_id = ?`,
  running: `SELECT ${COLUMNS} FROM node_invocations WHERE ${OF_INSTANCE} AND status = 'RUNNING' ORDER BY invocation_id`,
  history: `SELECT ${COLUMNS} FROM node_invocations WHERE ${OF_INSTANCE} AND node_id = ? ORDER BY version`,
  byInstance: `SELECT ${COLUMNS} FROM node_invocations WHERE ${OF_INSTANCE} ORDER BY invocation_id`,
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
 * The RUNNING invocation a begin creates, numbered from its (instance, node) version chain — version =
 * last + 1, parent = the latest COMPLETED version — and not yet written. The chains are kept in memory
 * (invocation-chains.ts), read from the table once per instance and status change.
 */
export function planInvocation(db: Database, args: BeginInvocationArgs): NodeInvocation {
  const chains = knownChains(db, args.instanceId) ?? loadChains(db, args.instanceId);
  const chain = chains.get(args.nodeId);
  const version = (chain?.last ?? 0) + 1;
  noteBegun(chains, args.nodeId, version);
  return {
    invocationId: newInvocationId(args.instanceId),
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

function loadChains(db: Database, instanceId: string) {
  const heads = statement(db, INVOCATION_SQL.chains).all(...instanceRange(instanceId)) as Array<{
    node_id: string;
    last: number;
    completed: number | null;
  }>;
  return trackInstance(db, instanceId, heads.map((h) => [h.node_id, { last: h.last, completed: h.completed }]));
}

/** Inserts a RUNNING invocation (see `planInvocation`). */
export function insertInvocation(db: Database, args: BeginInvocationArgs): NodeInvocation {
  const planned = planInvocation(db, args);
  statement(db, INVOCATION_SQL.insertAt).run(
    planned.invocationId,
    planned.instanceId,
    planned.nodeId,
    planned.nodeName,
    planned.version,
    planned.parentVersion,
    planned.startedAt,
  );
  noteInvocationStatus(db, planned.instanceId, planned.invocationId, "RUNNING");
  return planned;
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
  noteInvocationStatus(db, invocation.instanceId, id, to);
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
    if (knownNoneRunning(this.db, instanceId)) return [];
    return (statement(this.db, INVOCATION_SQL.running).all(...instanceRange(instanceId)) as InvocationRow[]).map(toInvocation);
  }

  history(instanceId: string, nodeId: string): NodeInvocation[] {
    flushPendingWrites(this.db);
    return (statement(this.db, INVOCATION_SQL.history).all(...instanceRange(instanceId), nodeId) as InvocationRow[]).map(toInvocation);
  }

  listByInstance(instanceId: string): NodeInvocation[] {
    flushPendingWrites(this.db);
    return (statement(this.db, INVOCATION_SQL.byInstance).all(...instanceRange(instanceId)) as InvocationRow[]).map(toInvocation);
  }

  private finish(id: string, to: InvocationStatus, error: string | null): NodeInvocation {
    return commitWith(this.db, () => finishInvocation(this.db, id, to, error), { oneWrite: true });
  }
}
