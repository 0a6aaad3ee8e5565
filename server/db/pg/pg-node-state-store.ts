import { InvocationStateError } from "@/server/graph/errors";
import { newSnowflake } from "@/server/graph/ids";
import type { BeginInvocationArgs, NodeStateStore } from "@/server/graph/persistence/node-state-store";
import type { InvocationStatus, NodeInvocation } from "@/server/graph/persistence/records";
import { toTimestamp, type PgStoreConnections, type PgQueryable } from "./pg-database";

export interface InvocationRow {
  invocation_id: string;
  instance_id: string;
  node_id: string;
  node_name: string;
  version: number;
  parent_version: number | null;
  status: InvocationStatus;
  started_at: Date;
  ended_at: Date | null;
  error: string | null;
}

const COLUMNS = "invocation_id, instance_id, node_id, node_name, version, parent_version, status, started_at, ended_at, error";

/**
 * A begin: RUNNING, version = the (instance, node) chain's last + 1, parent = its latest COMPLETED
 * version, computed in the INSERT itself (one round trip; the unique (instance, node, version) index
 * refuses a second executor's concurrent begin). Parameters: id, instance, node id, node name, start.
 */
export const BEGIN_SQL = `INSERT INTO node_invocations
    (invocation_id, instance_id, node_id, node_name, version, parent_version, status, started_at)
  SELECT $1, $2, $3, $4, coalesce(max(version), 0) + 1, max(version) FILTER (WHERE status = 'COMPLETED'), 'RUNNING', $5::timestamptz
  FROM node_invocations WHERE instance_id = $2 AND node_id = $3
  RETURNING version, parent_version`;

const SQL = {
  begin: BEGIN_SQL,
  finish: `UPDATE node_invocations SET status = $2, ended_at = $3::timestamptz, error = $4
    WHERE invocation_id = $1 AND status = 'RUNNING' RETURNING ${COLUMNS}`,
  statusOf: `SELECT status FROM node_invocations WHERE invocation_id = $1`,
  get: `SELECT ${COLUMNS} FROM node_invocations WHERE invocation_id = $1`,
  running: `SELECT ${COLUMNS} FROM node_invocations WHERE instance_id = $1 AND status = 'RUNNING' ORDER BY seq`,
  history: `SELECT ${COLUMNS} FROM node_invocations WHERE instance_id = $1 AND node_id = $2 ORDER BY version`,
  byInstance: `SELECT ${COLUMNS} FROM node_invocations WHERE instance_id = $1 ORDER BY seq`,
} as const;

const q = (name: keyof typeof SQL, values: unknown[]) => ({ name: `modex_node_${name}`, text: SQL[name], values });

export const toInvocation = (r: InvocationRow): NodeInvocation => ({
  invocationId: r.invocation_id,
  instanceId: r.instance_id,
  nodeId: r.node_id,
  nodeName: r.node_name,
  version: r.version,
  parentVersion: r.parent_version,
  status: r.status,
  startedAt: r.started_at.getTime(),
  endedAt: r.ended_at === null ? null : r.ended_at.getTime(),
  error: r.error,
});

/** An invocation id starts with its instance's id, as on SQLite. */
export const newInvocationId = (instanceId: string): string => `${instanceId}.${newSnowflake()}`;

/** Raises the InvocationStateError a failed compare-and-swap on `invocationId` means. */
export async function lostInvocationRace(db: PgQueryable, invocationId: string): Promise<never> {
  const { rows } = await db.query<{ status: InvocationStatus }>(q("statusOf", [invocationId]));
  throw new InvocationStateError(invocationId, "RUNNING", rows[0]?.status);
}

/**
 * NodeStateStore on PostgreSQL: version chains per (instance, node), compare-and-swap out of RUNNING.
 * Every call is one statement, committed when it returns (lifecycle steps: `db.steps`, see
 * PgEngineDatabase).
 */
export class PgNodeStateStore implements NodeStateStore {
  constructor(private readonly db: PgStoreConnections) {}

  async begin(args: BeginInvocationArgs): Promise<NodeInvocation> {
    const invocationId = newInvocationId(args.instanceId);
    const startedAt = Date.now();
    const { rows } = await this.db.steps.query<{ version: number; parent_version: number | null }>(
      q("begin", [invocationId, args.instanceId, args.nodeId, args.nodeName, toTimestamp(startedAt)]),
    );
    return {
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
  }

  complete(id: string): Promise<NodeInvocation> {
    return this.finish(id, "COMPLETED", null);
  }
  cancel(id: string, reason: string): Promise<NodeInvocation> {
    return this.finish(id, "CANCELLED", reason);
  }
  fail(id: string, error: string): Promise<NodeInvocation> {
    return this.finish(id, "FAILED", error);
  }
  markCrashed(id: string): Promise<NodeInvocation> {
    return this.finish(id, "CRASHED", null);
  }

  async get(id: string): Promise<NodeInvocation | null> {
    const { rows } = await this.db.steps.query<InvocationRow>(q("get", [id]));
    return rows.length > 0 ? toInvocation(rows[0]) : null;
  }

  async listRunning(instanceId: string): Promise<NodeInvocation[]> {
    return this.list(q("running", [instanceId]));
  }

  async history(instanceId: string, nodeId: string): Promise<NodeInvocation[]> {
    return this.list(q("history", [instanceId, nodeId]));
  }

  async listByInstance(instanceId: string): Promise<NodeInvocation[]> {
    return this.list(q("byInstance", [instanceId]));
  }

  private async list(query: ReturnType<typeof q>): Promise<NodeInvocation[]> {
    const { rows } = await this.db.steps.query<InvocationRow>(query);
    return rows.map(toInvocation);
  }

  private async finish(id: string, to: InvocationStatus, error: string | null): Promise<NodeInvocation> {
    const { rows } = await this.db.steps.query<InvocationRow>(q("finish", [id, to, toTimestamp(Date.now()), error]));
    if (rows.length === 0) return lostInvocationRace(this.db.steps, id);
    return toInvocation(rows[0]);
  }
}
