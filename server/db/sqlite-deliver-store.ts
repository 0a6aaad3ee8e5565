import type { DeliverStore } from "@/server/graph/persistence/deliver-store";
import type { DeliverRow, DeliverStatus, NewDeliverRow } from "@/server/graph/persistence/records";
import { commitWith, flushPendingWrites, statement, toJson, type Database } from "./graph-database";
import { consumableOf, forgetAllLedgers, forgetLedger, knownLedger, noteDelivered, openRowsOf } from "./known-ledgers";

interface LedgerRow {
  seq: number;
  deliver_id: string;
  instance_id: string;
  source_node: string;
  source_node_id: string;
  source_invocation_id: string | null;
  target_node: string;
  target_node_id: string;
  content: string;
  status: DeliverStatus;
  consumed_by: string | null;
  created_at: number;
}

const COLUMNS = `seq, deliver_id, instance_id, source_node, source_node_id, source_invocation_id, target_node,
  target_node_id, content, status, consumed_by, created_at`;

// Every listing answers in `seq` (insertion) order: delivery order, whatever order sources completed in.
// The node lifecycle's statements name the consumable index: without statistics the planner prefers a
// walk of the instance's whole (instance_id, seq) range, which grows with the run.
export const DELIVER_SQL = {
  /** seq = the instance's max + 1: a seek to the end of its (instance_id, seq) range. */
  insert: `INSERT INTO deliver_rows (instance_id, seq, deliver_id, source_node, source_node_id, source_invocation_id,
    target_node, target_node_id, content, status, consumed_by, created_at)
    VALUES (?, coalesce((SELECT max(seq) FROM deliver_rows WHERE instance_id = ?), 0) + 1, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)`,
  /** The seq known in memory (known-ledgers.ts). */
  insertAt: `INSERT INTO deliver_rows (instance_id, seq, deliver_id, source_node, source_node_id, source_invocation_id,
    target_node, target_node_id, content, status, consumed_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)`,
  promoteStaged: `UPDATE deliver_rows SET status = 'PENDING' WHERE source_invocation_id = ? AND status = 'STAGED'
    RETURNING ${COLUMNS}`,
  consumable: `SELECT ${COLUMNS} FROM deliver_rows INDEXED BY deliver_rows_consumable_idx
    WHERE instance_id = ? AND target_node_id = ? AND status IN ('PENDING', 'CONSUMED_PENDING') ORDER BY seq`,
  /** Claims every consumable row of a node at once: what `openInvocation` does after reading them. */
  claimAll: `UPDATE deliver_rows INDEXED BY deliver_rows_consumable_idx SET status = 'CONSUMED_PENDING', consumed_by = ?
    WHERE instance_id = ? AND target_node_id = ? AND status IN ('PENDING', 'CONSUMED_PENDING')`,
  /** A begin's claim written late: the rows it read are its node's consumable rows up to a seq. */
  claimUpTo: `UPDATE deliver_rows INDEXED BY deliver_rows_consumable_idx SET status = ?, consumed_by = ?
    WHERE instance_id = ? AND target_node_id = ? AND status IN ('PENDING', 'CONSUMED_PENDING') AND seq <= ?`,
  /** The same for a single row known by its seq. */
  claimSeq: `UPDATE deliver_rows SET status = ?, consumed_by = ? WHERE instance_id = ? AND seq = ?`,
  /** deliver_id has no index: the consumer's instance narrows the search to its rows. */
  claim: `UPDATE deliver_rows SET status = 'CONSUMED_PENDING', consumed_by = ?
    WHERE instance_id = ? AND deliver_id = ? AND status IN ('PENDING', 'CONSUMED_PENDING')`,
  /** For a consumer with no invocation row (nothing but tests): a scan. */
  claimById: `UPDATE deliver_rows SET status = 'CONSUMED_PENDING', consumed_by = ?
    WHERE deliver_id = ? AND status IN ('PENDING', 'CONSUMED_PENDING')`,
  /** A consumer's claimed rows, found through the consumable index: its instance and node are known. */
  promoteConsumed: `UPDATE deliver_rows INDEXED BY deliver_rows_consumable_idx SET status = 'CONSUMED_COMPLETED'
    WHERE instance_id = ? AND target_node_id = ? AND status IN ('PENDING', 'CONSUMED_PENDING')
      AND status = 'CONSUMED_PENDING' AND consumed_by = ?`,
  /** For a consumer with no invocation row (nothing but tests): a scan. */
  promoteConsumedById: `UPDATE deliver_rows SET status = 'CONSUMED_COMPLETED' WHERE consumed_by = ? AND status = 'CONSUMED_PENDING'`,
  consumerOf: `SELECT instance_id, node_id FROM node_invocations WHERE invocation_id = ?`,
  discardStaged: `DELETE FROM deliver_rows WHERE source_invocation_id = ? AND status = 'STAGED'`,
  byStatus: `SELECT ${COLUMNS} FROM deliver_rows
    WHERE instance_id = ? AND status IN (SELECT value FROM json_each(?)) ORDER BY seq`,
  /** The two status sets recovery and bootstrap list, without json_each. */
  open: `SELECT ${COLUMNS} FROM deliver_rows
    WHERE instance_id = ? AND status IN ('PENDING', 'CONSUMED_PENDING') ORDER BY seq`,
  stagedOrClaimed: `SELECT ${COLUMNS} FROM deliver_rows
    WHERE instance_id = ? AND status IN ('STAGED', 'CONSUMED_PENDING') ORDER BY seq`,
  byInstance: `SELECT ${COLUMNS} FROM deliver_rows WHERE instance_id = ? ORDER BY seq`,
} as const;

export const toDeliverRow = (r: LedgerRow): DeliverRow => ({
  deliverId: r.deliver_id,
  instanceId: r.instance_id,
  sourceNode: r.source_node,
  sourceNodeId: r.source_node_id,
  sourceInvocationId: r.source_invocation_id,
  targetNode: r.target_node,
  targetNodeId: r.target_node_id,
  content: JSON.parse(r.content),
  status: r.status,
  consumedByInvocationId: r.consumed_by,
  createdAt: r.created_at,
});

/**
 * Inserts ledger rows in `status`, in the given order (their delivery order). `contents` may carry the
 * rows' content already serialized, so a caller can fail on unserializable content before writing.
 */
export function insertDeliverRows(db: Database, rows: readonly NewDeliverRow[], status: DeliverStatus, contents?: readonly string[]): void {
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    const content = contents ? contents[i] : toJson(r.content);
    const ledger = knownLedger(db, r.instanceId);
    if (ledger && status === "PENDING") {
      const seq = ledger.nextSeq;
      statement(db, DELIVER_SQL.insertAt).run(r.instanceId, seq, r.deliverId, r.sourceNode, r.sourceNodeId, r.sourceInvocationId, r.targetNode, r.targetNodeId, content, status, r.createdAt);
      noteDelivered(ledger, r, seq); // once the table took it
      continue;
    }
    // A row the mirror does not follow (staged): the instance's ledger is read from the table from now on.
    if (ledger) forgetLedger(db, r.instanceId);
    statement(db, DELIVER_SQL.insert).run(r.instanceId, r.instanceId, r.deliverId, r.sourceNode, r.sourceNodeId, r.sourceInvocationId, r.targetNode, r.targetNodeId, content, status, r.createdAt);
  }
}

/**
 * Past this many rows, one statement through the consumable index beats a primary-key update each
 * (measured here: 8 rows 54 µs by key against 70 µs through the index, 16 rows 105 against 85).
 */
const MAX_UPDATES_BY_SEQ = 8;

/**
 * Sets the status (and consumer) of the given rows, known by seq from a mirrored ledger: by primary key,
 * one statement a row. One UPDATE through the consumable index would change rows of the index it walks,
 * which SQLite does in two passes through an ephemeral table: several times the cost, for a few rows.
 * False, having written nothing, when there are too many rows for that.
 */
export function updateBySeq(db: Database, instanceId: string, seqs: readonly number[], status: DeliverStatus, consumedBy: string): boolean {
  if (seqs.length > MAX_UPDATES_BY_SEQ) return false;
  const update = statement(db, DELIVER_SQL.claimSeq);
  for (const seq of seqs) update.run(status, consumedBy, instanceId, seq);
  return true;
}

/** The consumable rows of a node, in delivery order. */
export function selectConsumable(db: Database, instanceId: string, targetNodeId: string): DeliverRow[] {
  return readConsumable(db, instanceId, targetNodeId).rows;
}

/** The consumable rows of a node, and the highest seq among them (null: none), which a claim covers. */
export function readConsumable(db: Database, instanceId: string, targetNodeId: string): { rows: DeliverRow[]; upTo: number | null } {
  const ledger = knownLedger(db, instanceId);
  if (ledger) return consumableOf(ledger, targetNodeId);
  const found = statement(db, DELIVER_SQL.consumable).all(instanceId, targetNodeId) as LedgerRow[];
  const rows = new Array<DeliverRow>(found.length);
  for (let i = 0; i < found.length; i++) rows[i] = toDeliverRow(found[i]);
  return { rows, upTo: found.length === 0 ? null : found[found.length - 1].seq };
}

/** The statuses a mirrored ledger answers for: its consumable rows, and STAGED, which it never holds. */
const MIRRORED: ReadonlySet<DeliverStatus> = new Set(["STAGED", "PENDING", "CONSUMED_PENDING"]);

/** A statement of its own for the status sets every recovery lists; others go through json_each. */
function fixedListing(statuses: readonly DeliverStatus[]): string | undefined {
  if (statuses.length !== 2 || !statuses.includes("CONSUMED_PENDING")) return undefined;
  if (statuses.includes("PENDING")) return DELIVER_SQL.open;
  if (statuses.includes("STAGED")) return DELIVER_SQL.stagedOrClaimed;
  return undefined;
}

/** DeliverStore on SQLite. Content is stored as JSON text: it must be JSON-serializable. */
export class SqliteDeliverStore implements DeliverStore {
  constructor(private readonly db: Database) {}

  stage(rows: readonly NewDeliverRow[]): void {
    if (rows.length > 0) commitWith(this.db, () => insertDeliverRows(this.db, rows, "STAGED"));
  }

  appendPending(row: NewDeliverRow): DeliverRow {
    commitWith(this.db, () => insertDeliverRows(this.db, [row], "PENDING"));
    return { ...row, status: "PENDING", consumedByInvocationId: null };
  }

  // The store's own writes below change consumable rows outside the coordinator's lifecycle steps,
  // which alone keep the in-memory ledgers up to date: they are forgotten (known-ledgers.ts).
  promoteStaged(sourceInvocationId: string): DeliverRow[] {
    forgetAllLedgers(this.db);
    const rows = commitWith(this.db, () => statement(this.db, DELIVER_SQL.promoteStaged).all(sourceInvocationId)) as LedgerRow[];
    // RETURNING answers in no promised order.
    return rows.sort((a, b) => a.seq - b.seq).map(toDeliverRow);
  }

  consumable(instanceId: string, targetNodeId: string): DeliverRow[] {
    flushPendingWrites(this.db);
    return selectConsumable(this.db, instanceId, targetNodeId);
  }

  markConsumed(deliverIds: readonly string[], invocationId: string): void {
    if (deliverIds.length === 0) return;
    forgetAllLedgers(this.db);
    commitWith(this.db, () => {
      const consumer = statement(this.db, DELIVER_SQL.consumerOf).get(invocationId) as { instance_id: string } | undefined;
      if (consumer) {
        const claim = statement(this.db, DELIVER_SQL.claim);
        for (const id of deliverIds) claim.run(invocationId, consumer.instance_id, id);
      } else {
        const claim = statement(this.db, DELIVER_SQL.claimById);
        for (const id of deliverIds) claim.run(invocationId, id);
      }
    });
  }

  promoteConsumed(invocationId: string): void {
    forgetAllLedgers(this.db);
    commitWith(this.db, () => {
      const consumer = statement(this.db, DELIVER_SQL.consumerOf).get(invocationId) as { instance_id: string; node_id: string } | undefined;
      if (consumer) statement(this.db, DELIVER_SQL.promoteConsumed).run(consumer.instance_id, consumer.node_id, invocationId);
      else statement(this.db, DELIVER_SQL.promoteConsumedById).run(invocationId);
    });
  }

  discardStaged(sourceInvocationIds: readonly string[]): void {
    if (sourceInvocationIds.length === 0) return;
    commitWith(this.db, () => {
      const discard = statement(this.db, DELIVER_SQL.discardStaged);
      for (const src of sourceInvocationIds) discard.run(src);
    });
  }

  listByStatus(instanceId: string, statuses: readonly DeliverStatus[]): DeliverRow[] {
    flushPendingWrites(this.db);
    if (statuses.length === 0) return [];
    const ledger = knownLedger(this.db, instanceId);
    if (ledger && statuses.every((s) => MIRRORED.has(s))) return openRowsOf(ledger, statuses);
    const sql = fixedListing(statuses);
    const rows = sql ? statement(this.db, sql).all(instanceId) : statement(this.db, DELIVER_SQL.byStatus).all(instanceId, JSON.stringify(statuses));
    return (rows as LedgerRow[]).map(toDeliverRow);
  }

  listByInstance(instanceId: string): DeliverRow[] {
    flushPendingWrites(this.db);
    return (statement(this.db, DELIVER_SQL.byInstance).all(instanceId) as LedgerRow[]).map(toDeliverRow);
  }
}
