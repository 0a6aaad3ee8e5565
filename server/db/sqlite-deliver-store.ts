import type { DeliverStore } from "@/server/graph/persistence/deliver-store";
import type { DeliverRow, DeliverStatus, NewDeliverRow } from "@/server/graph/persistence/records";
import { type Database } from "./graph-database";
import { pluckStatement, statement, toJson } from "./sqlite-statements";
import { commitWith, flushPendingWrites } from "./deferred-transaction";
import {
  consumableOf,
  forgetAllLedgers,
  forgetLedger,
  knownLedger,
  noteDelivered,
  openRowsOf,
  trackLoadedLedger,
  type Ledger,
  type OpenLedgerRow,
} from "./known-ledgers";

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
// Open rows (STAGED, PENDING, CONSUMED_PENDING) have no index of their own: every commit that inserts
// or consumes a row would write a page of it. They are found from the instance's low-water mark
// (`graph_instances.deliver_low_water`), below which no row is open: a range of the primary key
// (instance_id, seq) that holds the open rows and what followed them. An instance with no row (rows
// written by tests alone) reads from seq 1.
const MARK = `coalesce((SELECT deliver_low_water FROM graph_instances WHERE instance_id = ? AND +is_latest = 1), 1)`;
/** The instance's rows from its mark on (parameters: instance_id twice). */
const FROM_MARK = `instance_id = ? AND seq >= ${MARK}`;

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
  consumable: `SELECT ${COLUMNS} FROM deliver_rows
    WHERE ${FROM_MARK} AND target_node_id = ? AND status IN ('PENDING', 'CONSUMED_PENDING') ORDER BY seq`,
  /** Claims every consumable row of a node at once: what `openInvocation` does after reading them. */
  claimAll: `UPDATE deliver_rows SET status = 'CONSUMED_PENDING', consumed_by = ?
    WHERE ${FROM_MARK} AND target_node_id = ? AND status IN ('PENDING', 'CONSUMED_PENDING')`,
  /** A begin's claim written late: the rows it read are its node's consumable rows up to a seq. */
  claimUpTo: `UPDATE deliver_rows SET status = ?, consumed_by = ?
    WHERE ${FROM_MARK} AND seq <= ? AND target_node_id = ? AND status IN ('PENDING', 'CONSUMED_PENDING')`,
  /** The same, the first of those rows known too (a mirrored ledger's). */
  claimBetween: `UPDATE deliver_rows SET status = ?, consumed_by = ?
    WHERE instance_id = ? AND seq BETWEEN ? AND ? AND target_node_id = ? AND status IN ('PENDING', 'CONSUMED_PENDING')`,
  /** The same for a single row known by its seq. */
  claimSeq: `UPDATE deliver_rows SET status = ?, consumed_by = ? WHERE instance_id = ? AND seq = ?`,
  /** deliver_id has no index: the consumer's instance narrows the search to its rows from the mark. */
  claim: `UPDATE deliver_rows SET status = 'CONSUMED_PENDING', consumed_by = ?
    WHERE ${FROM_MARK} AND deliver_id = ? AND status IN ('PENDING', 'CONSUMED_PENDING')`,
  /** For a consumer with no invocation row (nothing but tests): a scan. */
  claimById: `UPDATE deliver_rows SET status = 'CONSUMED_PENDING', consumed_by = ?
    WHERE deliver_id = ? AND status IN ('PENDING', 'CONSUMED_PENDING')`,
  /** A consumer's claimed rows: its instance and node are known. */
  promoteConsumed: `UPDATE deliver_rows SET status = 'CONSUMED_COMPLETED'
    WHERE ${FROM_MARK} AND target_node_id = ? AND status = 'CONSUMED_PENDING' AND consumed_by = ?`,
  /** The same, their first and last seq known (a mirrored ledger's). */
  promoteBetween: `UPDATE deliver_rows SET status = 'CONSUMED_COMPLETED'
    WHERE instance_id = ? AND seq BETWEEN ? AND ? AND status = 'CONSUMED_PENDING' AND consumed_by = ?`,
  /** For a consumer with no invocation row (nothing but tests): a scan. */
  promoteConsumedById: `UPDATE deliver_rows SET status = 'CONSUMED_COMPLETED' WHERE consumed_by = ? AND status = 'CONSUMED_PENDING'`,
  consumerOf: `SELECT instance_id, node_id FROM node_invocations WHERE invocation_id = ?`,
  discardStaged: `DELETE FROM deliver_rows WHERE source_invocation_id = ? AND status = 'STAGED'`,
  /** Any statuses: the whole ledger of the instance. */
  byStatus: `SELECT ${COLUMNS} FROM deliver_rows
    WHERE instance_id = ? AND status IN (SELECT value FROM json_each(?)) ORDER BY seq`,
  /** Open statuses only: from the mark. */
  openByStatus: `SELECT ${COLUMNS} FROM deliver_rows
    WHERE ${FROM_MARK} AND status IN (SELECT value FROM json_each(?)) ORDER BY seq`,
  /** The two status sets recovery and bootstrap list, without json_each. */
  open: `SELECT ${COLUMNS} FROM deliver_rows
    WHERE ${FROM_MARK} AND status IN ('PENDING', 'CONSUMED_PENDING') ORDER BY seq`,
  stagedOrClaimed: `SELECT ${COLUMNS} FROM deliver_rows
    WHERE ${FROM_MARK} AND status IN ('STAGED', 'CONSUMED_PENDING') ORDER BY seq`,
  /** Every open row, what a mirrored ledger is loaded from. */
  allOpen: `SELECT ${COLUMNS} FROM deliver_rows
    WHERE ${FROM_MARK} AND status IN ('STAGED', 'PENDING', 'CONSUMED_PENDING') ORDER BY seq`,
  lastSeq: `SELECT max(seq) FROM deliver_rows WHERE instance_id = ?`,
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
 * Past this many rows, one statement over the rows' seq range beats a primary-key update each (measured
 * with the consumable index this table had then: 8 rows 54 µs by key against 70 µs in one statement, 16
 * rows 105 against 85; a range of the primary key, which the update leaves alone, costs no more).
 */
const MAX_UPDATES_BY_SEQ = 8;

/**
 * Claims a node's consumable rows, known by seq from a mirrored ledger (`seqs`, in order, non-empty):
 * by primary key, one statement a row, or past a few rows one statement over their seq range, which
 * holds no other consumable row of the node.
 */
export function claimSeqs(db: Database, instanceId: string, nodeId: string, seqs: readonly number[], status: DeliverStatus, consumedBy: string): void {
  if (seqs.length > MAX_UPDATES_BY_SEQ) {
    statement(db, DELIVER_SQL.claimBetween).run(status, consumedBy, instanceId, seqs[0], seqs[seqs.length - 1], nodeId);
    return;
  }
  const update = statement(db, DELIVER_SQL.claimSeq);
  for (const seq of seqs) update.run(status, consumedBy, instanceId, seq);
}

/** The rows `consumedBy` claimed, known by seq from a mirrored ledger (in order), are CONSUMED_COMPLETED. */
export function promoteSeqs(db: Database, instanceId: string, seqs: readonly number[], consumedBy: string): void {
  if (seqs.length > MAX_UPDATES_BY_SEQ) {
    statement(db, DELIVER_SQL.promoteBetween).run(instanceId, seqs[0], seqs[seqs.length - 1], consumedBy);
    return;
  }
  const update = statement(db, DELIVER_SQL.claimSeq);
  for (const seq of seqs) update.run("CONSUMED_COMPLETED", consumedBy, instanceId, seq);
}

/** The consumable rows of a node, in delivery order. */
export function selectConsumable(db: Database, instanceId: string, targetNodeId: string): DeliverRow[] {
  return readConsumable(db, instanceId, targetNodeId).rows;
}

/** The consumable rows of a node, and the highest seq among them (null: none), which a claim covers. */
export function readConsumable(db: Database, instanceId: string, targetNodeId: string): { rows: DeliverRow[]; upTo: number | null } {
  const ledger = knownLedger(db, instanceId);
  if (ledger) return consumableOf(ledger, targetNodeId);
  const found = statement(db, DELIVER_SQL.consumable).all(instanceId, instanceId, targetNodeId) as LedgerRow[];
  const rows = new Array<DeliverRow>(found.length);
  for (let i = 0; i < found.length; i++) rows[i] = toDeliverRow(found[i]);
  return { rows, upTo: found.length === 0 ? null : found[found.length - 1].seq };
}

/**
 * The instance's mirrored ledger, loaded from the table when this connection has none: its open rows
 * from the low-water mark on, read once per run instead of at every begin. Call only where this
 * connection is about to run the instance (a begin, a recovery), inside a transaction. Undefined when
 * a row is STAGED (a crash between a completion and its promotion, or a store's own staging): the
 * table answers then.
 */
export function ledgerToRun(db: Database, instanceId: string): Ledger | undefined {
  const known = knownLedger(db, instanceId);
  if (known) return known;
  const found = statement(db, DELIVER_SQL.allOpen).all(instanceId, instanceId) as LedgerRow[];
  const open: OpenLedgerRow[] = new Array(found.length);
  for (let i = 0; i < found.length; i++) {
    const r = found[i];
    if (r.status === "STAGED") return undefined;
    open[i] = { seq: r.seq, row: toDeliverRow(r), status: r.status, consumedBy: r.consumed_by };
  }
  const last = (pluckStatement(db, DELIVER_SQL.lastSeq).get(instanceId) as number | null) ?? 0;
  return trackLoadedLedger(db, instanceId, last + 1, open);
}

/**
 * The statuses a mirrored ledger answers for: its consumable rows, and STAGED, which it never holds;
 * the open statuses, which no row below the low-water mark is in.
 */
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
        for (const id of deliverIds) claim.run(invocationId, consumer.instance_id, consumer.instance_id, id);
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
      if (consumer) statement(this.db, DELIVER_SQL.promoteConsumed).run(consumer.instance_id, consumer.instance_id, consumer.node_id, invocationId);
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
    const rows = sql
      ? statement(this.db, sql).all(instanceId, instanceId)
      : statuses.every((s) => MIRRORED.has(s))
        ? statement(this.db, DELIVER_SQL.openByStatus).all(instanceId, instanceId, JSON.stringify(statuses))
        : statement(this.db, DELIVER_SQL.byStatus).all(instanceId, JSON.stringify(statuses));
    return (rows as LedgerRow[]).map(toDeliverRow);
  }

  listByInstance(instanceId: string): DeliverRow[] {
    flushPendingWrites(this.db);
    return (statement(this.db, DELIVER_SQL.byInstance).all(instanceId) as LedgerRow[]).map(toDeliverRow);
  }
}
