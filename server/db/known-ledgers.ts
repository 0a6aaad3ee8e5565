import { deliverRow, type DeliverRow, type DeliverStatus, type NewDeliverRow } from "@/server/graph/persistence/records";
import type { Database } from "./graph-database";
import { InstanceMemory } from "./instance-memory";

/** A consumable row of the ledger (PENDING, or CONSUMED_PENDING by an unfinished consumer). */
export interface OpenLedgerRow {
  readonly seq: number;
  readonly row: NewDeliverRow;
  status: DeliverStatus;
  consumedBy: string | null;
}

export interface Ledger {
  nextSeq: number;
  /** Target node id → its consumable rows, in seq order. */
  readonly open: Map<string, OpenLedgerRow[]>;
}

const ledgers = new InstanceMemory<Ledger>();

/**
 * The deliver ledgers of instances this connection runs, mirrored in memory: the next seq, and each
 * node's consumable rows. A node's begin then reads its inputs without a query, and a deliver is
 * inserted without looking up the instance's last seq. Tracked from the instance's creation, or loaded
 * by a run's first begin (from the low-water mark on, `ledgerToRun`), and kept as long as the version
 * chains (invocation-chains.ts): until the instance's next status change, or through a pause to the
 * resume when no other connection wrote meanwhile (instance-memory.ts). Only the coordinator's
 * lifecycle steps keep a ledger up to date; any other ledger write, and any rollback, forgets it, and
 * the table answers again (a later begin loads it again).
 *
 * A mirrored ledger holds no STAGED row (staging one forgets it, and none is loaded), so every row
 * below its next seq that it does not hold is CONSUMED_COMPLETED: its low-water mark (`lowWaterOf`),
 * which each status change writes, is exact. A row another connection inserts is at or above the next
 * seq (max + 1), so above the mark too, or collides with this connection's next insert, which rolls
 * back and forgets the mirror.
 */
export function trackNewLedger(db: Database, instanceId: string): void {
  ledgers.track(db, instanceId, { nextSeq: 1, open: new Map() });
}

/** Tracks a ledger read from the table: its next seq, and its consumable rows in seq order. */
export function trackLoadedLedger(db: Database, instanceId: string, nextSeq: number, rows: readonly OpenLedgerRow[]): Ledger {
  const open = new Map<string, OpenLedgerRow[]>();
  for (const o of rows) {
    const node = open.get(o.row.targetNodeId);
    if (node) node.push(o);
    else open.set(o.row.targetNodeId, [o]);
  }
  return ledgers.track(db, instanceId, { nextSeq, open });
}

/**
 * The ledger's low-water mark: its first open row's seq, or the next seq when none is open. No row
 * below it is open, and it is at most one past the last row that is not STAGED (only STAGED rows are
 * ever deleted, and this ledger has none): every row inserted later is at or above it.
 */
export function lowWaterOf(ledger: Ledger): number {
  let low = ledger.nextSeq;
  for (const rows of ledger.open.values()) if (rows.length > 0 && rows[0].seq < low) low = rows[0].seq;
  return low;
}

export function knownLedger(db: Database, instanceId: string): Ledger | undefined {
  return ledgers.known(db, instanceId);
}

export function forgetLedger(db: Database, instanceId: string): void {
  ledgers.forget(db, instanceId);
}

export function forgetAllLedgers(db: Database): void {
  ledgers.forgetAll(db);
}

/** A PENDING row was inserted at `seq` (the ledger's `nextSeq`). */
export function noteDelivered(ledger: Ledger, row: NewDeliverRow, seq: number): void {
  ledger.nextSeq = seq + 1;
  const open = ledger.open.get(row.targetNodeId);
  const entry: OpenLedgerRow = { seq, row, status: "PENDING", consumedBy: null };
  if (open) open.push(entry);
  else ledger.open.set(row.targetNodeId, [entry]);
}

/** A node's consumable rows in delivery order, and the highest seq among them (null: none). */
export function consumableOf(ledger: Ledger, targetNodeId: string): { rows: DeliverRow[]; upTo: number | null } {
  const open = ledger.open.get(targetNodeId);
  if (!open || open.length === 0) return { rows: [], upTo: null };
  const rows = new Array<DeliverRow>(open.length);
  for (let i = 0; i < open.length; i++) {
    const o = open[i];
    rows[i] = deliverRow(o.row, o.status, o.consumedBy);
  }
  return { rows, upTo: open[open.length - 1].seq };
}

/** The seqs of the node's consumable rows up to `upTo`, in order. */
export function openSeqsUpTo(ledger: Ledger, targetNodeId: string, upTo: number): number[] {
  const seqs: number[] = [];
  for (const o of ledger.open.get(targetNodeId) ?? []) {
    if (o.seq > upTo) break;
    seqs.push(o.seq);
  }
  return seqs;
}

/** The seqs of the rows `invocationId` claimed (CONSUMED_PENDING) among the node's consumable rows. */
export function claimedSeqs(ledger: Ledger, targetNodeId: string, invocationId: string): number[] {
  const seqs: number[] = [];
  for (const o of ledger.open.get(targetNodeId) ?? []) if (o.consumedBy === invocationId) seqs.push(o.seq);
  return seqs;
}

/** The node's rows up to `upTo` were claimed by `invocationId` (CONSUMED_PENDING). */
export function noteClaimed(ledger: Ledger, targetNodeId: string, upTo: number, invocationId: string): void {
  for (const o of ledger.open.get(targetNodeId) ?? []) {
    if (o.seq > upTo) break;
    o.status = "CONSUMED_PENDING";
    o.consumedBy = invocationId;
  }
}

/** The node's rows up to `upTo`, or those claimed by `consumedBy`, are CONSUMED_COMPLETED: no longer open. */
export function noteConsumed(ledger: Ledger, targetNodeId: string, by: { upTo: number } | { consumedBy: string }): void {
  const open = ledger.open.get(targetNodeId);
  if (!open) return;
  const left = open.filter((o) => ("upTo" in by ? o.seq > by.upTo : o.consumedBy !== by.consumedBy));
  if (left.length === 0) ledger.open.delete(targetNodeId);
  else ledger.open.set(targetNodeId, left);
}

/**
 * The ledger's rows in any of `statuses`, in seq order. Only consumable rows are mirrored, and a
 * mirrored ledger has no STAGED row (staging a row forgets the mirror): callers ask for no other status.
 */
export function openRowsOf(ledger: Ledger, statuses: readonly DeliverStatus[]): DeliverRow[] {
  const found: OpenLedgerRow[] = [];
  for (const rows of ledger.open.values()) for (const o of rows) if (statuses.includes(o.status)) found.push(o);
  found.sort((a, b) => a.seq - b.seq);
  return found.map((o) => deliverRow(o.row, o.status, o.consumedBy));
}
