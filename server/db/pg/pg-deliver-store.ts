import type { DeliverStore } from "@/server/graph/persistence/deliver-store";
import { deliverRow, type DeliverRow, type DeliverStatus, type NewDeliverRow } from "@/server/graph/persistence/records";
import { toJson, toTimestamp, type PgStoreConnections } from "./pg-database";

export interface DeliverRowRecord {
  deliver_id: string;
  instance_id: string;
  source_node: string;
  source_node_id: string;
  source_invocation_id: string | null;
  target_node: string;
  target_node_id: string;
  content: unknown;
  status: DeliverStatus;
  consumed_by: string | null;
  created_at: Date;
}

export const DELIVER_COLUMNS =
  "deliver_id, instance_id, source_node, source_node_id, source_invocation_id, target_node, target_node_id, content, status, consumed_by, created_at";

/**
 * Inserts rows given as nine parallel arrays, parameters $first … $first+8 (deliver ids, instance ids,
 * source nodes, source node ids, source invocation ids, target nodes, target node ids, JSON contents,
 * ISO created-at times; see `rowArrays`), with `status` (an SQL expression): one statement for any
 * number of rows, seq in array order. `when` adds a condition (SQL) under which they are inserted, and
 * `consumedBy` (an SQL expression) the consumer they are written claimed by.
 */
export function insertRowsSql(first: number, status: string, when = "true", consumedBy = "NULL"): string {
  const p = (k: number) => `$${first + k}::text[]`;
  return `INSERT INTO deliver_rows (${DELIVER_COLUMNS})
  SELECT r.deliver_id, r.instance_id, r.source_node, r.source_node_id, r.source_invocation_id, r.target_node,
    r.target_node_id, r.content::json, ${status}, ${consumedBy}, r.created_at::timestamptz
  FROM unnest(${[0, 1, 2, 3, 4, 5, 6, 7, 8].map(p).join(", ")})
    WITH ORDINALITY AS r(deliver_id, instance_id, source_node, source_node_id, source_invocation_id, target_node,
      target_node_id, content, created_at, n)
  WHERE ${when}
  ORDER BY r.n`;
}

/** The nine array parameters of `insertRowsSql`. */
export function rowArrays(rows: readonly NewDeliverRow[]): unknown[] {
  const cols: unknown[][] = Array.from({ length: 9 }, () => new Array<unknown>(rows.length));
  rows.forEach((r, i) => {
    cols[0][i] = r.deliverId;
    cols[1][i] = r.instanceId;
    cols[2][i] = r.sourceNode;
    cols[3][i] = r.sourceNodeId;
    cols[4][i] = r.sourceInvocationId;
    cols[5][i] = r.targetNode;
    cols[6][i] = r.targetNodeId;
    cols[7][i] = toJson(r.content);
    cols[8][i] = toTimestamp(r.createdAt);
  });
  return cols;
}

const SQL = {
  insert: insertRowsSql(1, "$10::text"),
  promoteStaged: `UPDATE deliver_rows SET status = 'PENDING'
    WHERE source_invocation_id = $1 AND consumed_by IS NULL AND status = 'STAGED' RETURNING seq, ${DELIVER_COLUMNS}`,
  consumable: `SELECT ${DELIVER_COLUMNS} FROM deliver_rows
    WHERE instance_id = $1 AND target_node_id = $2 AND status IN ('PENDING', 'CONSUMED_PENDING') ORDER BY seq`,
  markConsumed: `UPDATE deliver_rows SET status = 'CONSUMED_PENDING', consumed_by = $2
    WHERE deliver_id = ANY($1::text[]) AND status IN ('PENDING', 'CONSUMED_PENDING')`,
  promoteConsumed: `UPDATE deliver_rows SET status = 'CONSUMED_COMPLETED'
    WHERE consumed_by = $1 AND status = 'CONSUMED_PENDING'`,
  discardStaged: `DELETE FROM deliver_rows
    WHERE source_invocation_id = ANY($1::text[]) AND consumed_by IS NULL AND status = 'STAGED'`,
  byStatus: `SELECT ${DELIVER_COLUMNS} FROM deliver_rows WHERE instance_id = $1 AND status = ANY($2::text[]) ORDER BY seq`,
  byInstance: `SELECT ${DELIVER_COLUMNS} FROM deliver_rows WHERE instance_id = $1 ORDER BY seq`,
} as const;

const q = (name: keyof typeof SQL, values: unknown[]) => ({ name: `modex_deliver_${name}`, text: SQL[name], values });

export const toDeliverRow = (r: DeliverRowRecord): DeliverRow => ({
  deliverId: r.deliver_id,
  instanceId: r.instance_id,
  sourceNode: r.source_node,
  sourceNodeId: r.source_node_id,
  sourceInvocationId: r.source_invocation_id,
  targetNode: r.target_node,
  targetNodeId: r.target_node_id,
  content: r.content,
  status: r.status,
  consumedByInvocationId: r.consumed_by,
  createdAt: r.created_at.getTime(),
});

/**
 * The deliver ledger on PostgreSQL: one statement per call. Ledger steps commit through `db.steps`; an
 * external deliver (`appendPending`, which a caller is told of) through `db.acks`.
 */
export class PgDeliverStore implements DeliverStore {
  constructor(private readonly db: PgStoreConnections) {}

  async stage(rows: readonly NewDeliverRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.steps.query(q("insert", [...rowArrays(rows), "STAGED"]));
  }

  async appendPending(row: NewDeliverRow): Promise<DeliverRow> {
    await this.db.acks.query(q("insert", [...rowArrays([row]), "PENDING"]));
    return deliverRow(row, "PENDING", null);
  }

  async promoteStaged(sourceInvocationId: string): Promise<DeliverRow[]> {
    const { rows } = await this.db.steps.query<DeliverRowRecord & { seq: string }>(q("promoteStaged", [sourceInvocationId]));
    // RETURNING has no order: seq (a bigint, read as text) restores the staging order.
    return rows.sort((a, b) => compareSeq(a.seq, b.seq)).map(toDeliverRow);
  }

  async consumable(instanceId: string, targetNodeId: string): Promise<DeliverRow[]> {
    return this.list(q("consumable", [instanceId, targetNodeId]));
  }

  async markConsumed(deliverIds: readonly string[], invocationId: string): Promise<void> {
    if (deliverIds.length === 0) return;
    await this.db.steps.query(q("markConsumed", [deliverIds, invocationId]));
  }

  async promoteConsumed(invocationId: string): Promise<void> {
    await this.db.steps.query(q("promoteConsumed", [invocationId]));
  }

  async discardStaged(sourceInvocationIds: readonly string[]): Promise<void> {
    if (sourceInvocationIds.length === 0) return;
    await this.db.steps.query(q("discardStaged", [sourceInvocationIds]));
  }

  async listByStatus(instanceId: string, statuses: readonly DeliverStatus[]): Promise<DeliverRow[]> {
    if (statuses.length === 0) return [];
    return this.list(q("byStatus", [instanceId, statuses]));
  }

  async listByInstance(instanceId: string): Promise<DeliverRow[]> {
    return this.list(q("byInstance", [instanceId]));
  }

  private async list(query: ReturnType<typeof q>): Promise<DeliverRow[]> {
    const { rows } = await this.db.steps.query<DeliverRowRecord>(query);
    return rows.map(toDeliverRow);
  }
}

/** Orders two bigint seqs read as decimal text. */
export const compareSeq = (a: string, b: string): number => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
