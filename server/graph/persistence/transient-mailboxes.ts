import type { NodePlace } from "./node-state-store";
import { deliverRow, type DeliverRow } from "./records";

/**
 * One instance's mailboxes, one per target node, by the node's position in the graph `place` belongs
 * to (its `nodeIds` list stands for that graph); ids outside it (another graph's, a test's) are
 * numbered after it as they come. What waits at a position is a lone row (its seq and claimant
 * beside it, here) or an `Inbox`.
 */
export class Mailboxes {
  readonly waiting: (DeliverRow | Inbox | null | undefined)[];
  /**
   * A lone row's seq, or `INBOX` where an Inbox waits: which of the two waits is told without
   * reading it (a wide fan-out's rows are out of cache when their targets claim them). Off the heap:
   * young collections copy a 10,000-branch run's lists in flight.
   */
  seqs: Float64Array;
  /** A lone row's claimant: null while PENDING. */
  readonly claimers: (string | null | undefined)[];
  /** Positions with something waiting. */
  live = 0;
  private extra: Map<string, number> | null = null;
  private readonly size: number;
  readonly nodeIds: readonly string[] | null;

  constructor(
    readonly instanceId: string,
    private readonly place: NodePlace | null,
  ) {
    this.nodeIds = place?.nodeIds ?? null;
    this.size = this.nodeIds?.length ?? 0;
    this.waiting = new Array(this.size);
    this.seqs = new Float64Array(this.size);
    this.claimers = new Array(this.size);
  }

  /** The position of a node id, numbering a new one. */
  positionOf(nodeId: string): number {
    const at = this.find(nodeId);
    if (at !== -1) return at;
    const extra = (this.extra ??= new Map());
    extra.set(nodeId, this.size + extra.size);
    return this.size + extra.size - 1;
  }

  /** The position of a node id, or -1 when nothing was ever delivered to it (the graph's id map is made only if asked). */
  find(nodeId: string): number {
    return this.place?.positions.get(nodeId) ?? this.extra?.get(nodeId) ?? -1;
  }

  /** The Inbox waiting at `at`, or null where a lone row or nothing waits. */
  inboxAt(at: number): Inbox | null {
    return this.seqs[at] === INBOX ? (this.waiting[at] as Inbox | null) : null;
  }

  add(at: number, row: DeliverRow, seq: number): void {
    const waiting = this.waiting[at];
    if (!waiting) {
      this.waiting[at] = row;
      if (at >= this.seqs.length) this.growSeqs(at);
      this.seqs[at] = seq;
      this.claimers[at] = null;
      this.live++;
      return;
    }
    const inbox = this.inboxAt(at);
    if (inbox !== null) inbox.add(row, seq);
    else {
      this.waiting[at] = new Inbox(waiting as DeliverRow, this.seqs[at], this.claimers[at] ?? null, row, seq);
      this.seqs[at] = INBOX;
    }
  }

  private growSeqs(at: number): void {
    const grown = new Float64Array(Math.max(8, 2 * at));
    grown.set(this.seqs);
    this.seqs = grown;
  }

  /** Claims the row `deliverId` if it waits at `at`. */
  claim(at: number, deliverId: string, invocationId: string): boolean {
    const waiting = at === -1 ? undefined : this.waiting[at];
    if (!waiting) return false;
    const inbox = this.inboxAt(at);
    if (inbox !== null) return inbox.claim(deliverId, invocationId);
    if ((waiting as DeliverRow).deliverId !== deliverId) return false;
    this.claimers[at] = invocationId;
    return true;
  }

  /** Claims the row `deliverId` wherever it waits; its position, or -1. */
  claimAnywhere(deliverId: string, invocationId: string): number {
    for (let at = 0; at < this.waiting.length; at++) if (this.claim(at, deliverId, invocationId)) return at;
    return -1;
  }

  /** Rows at `at` claimed by `invocationId` leave. True when the position emptied. */
  complete(at: number, invocationId: string): boolean {
    if (!this.waiting[at]) return false;
    const inbox = this.inboxAt(at);
    if (inbox !== null) {
      if (!inbox.completeClaimsOf(invocationId)) return false;
    } else if (this.claimers[at] !== invocationId) return false;
    this.waiting[at] = null;
    this.claimers[at] = null;
    this.live--;
    return true;
  }

  forEachOpen(visit: (row: DeliverRow, seq: number) => void): void {
    for (let at = 0; at < this.waiting.length; at++) {
      const waiting = this.waiting[at];
      if (!waiting) continue;
      const inbox = this.inboxAt(at);
      if (inbox !== null) inbox.forEachOpen(visit);
      else visit(snapshotOf(waiting as DeliverRow, this.claimers[at]), this.seqs[at]);
    }
  }
}

/** In `Mailboxes.seqs`, where an Inbox waits: a lone row's seq is never negative. */
const INBOX = -1;

/**
 * Several rows waiting for one target, in arrival order, as parallel lists: no object per row.
 * A completed row's slot is emptied and the lists are compacted once mostly empty.
 */
export class Inbox {
  rows: (DeliverRow | null)[];
  seqs: number[];
  /**
   * Claimants by row, null while PENDING; no list until a row is claimed (a join's 10,000 rows wait
   * unclaimed until the join runs).
   */
  claimers: (string | null)[] | null = null;
  live = 2;

  constructor(first: DeliverRow, firstSeq: number, firstClaimer: string | null, second: DeliverRow, secondSeq: number) {
    this.rows = [first, second];
    this.seqs = [firstSeq, secondSeq];
    if (firstClaimer !== null) this.claimers = [firstClaimer, null];
  }

  add(row: DeliverRow, seq: number): void {
    this.rows.push(row);
    this.seqs.push(seq);
    this.claimers?.push(null);
    this.live++;
  }

  private claimerAt(k: number): string | null {
    return this.claimers === null ? null : this.claimers[k];
  }

  private claimersList(): (string | null)[] {
    return (this.claimers ??= new Array<string | null>(this.rows.length).fill(null));
  }

  /** The open rows in seq order, as the ledger reads now. */
  snapshots(): DeliverRow[] {
    // A join's rows as they usually wait: all open, unclaimed, in seq order. Its list is the answer.
    if (this.claimers === null && this.live === this.rows.length && this.inSeqOrder()) return this.rows.slice() as DeliverRow[];
    const order = this.openInSeqOrder();
    const out: DeliverRow[] = new Array(order.length);
    for (let k = 0; k < order.length; k++) out[k] = snapshotOf(this.rows[order[k]]!, this.claimerAt(order[k]));
    return out;
  }

  claimAll(invocationId: string): void {
    const claimers = this.claimersList();
    for (let k = 0; k < this.rows.length; k++) if (this.rows[k] !== null) claimers[k] = invocationId;
  }

  claim(deliverId: string, invocationId: string): boolean {
    for (let k = 0; k < this.rows.length; k++) {
      if (this.rows[k]?.deliverId === deliverId) {
        this.claimersList()[k] = invocationId;
        return true;
      }
    }
    return false;
  }

  /** Rows claimed by `invocationId` leave. True when none is left. */
  completeClaimsOf(invocationId: string): boolean {
    const claimers = this.claimers;
    if (claimers === null) return false;
    for (let k = 0; k < this.rows.length; k++) {
      if (this.rows[k] !== null && claimers[k] === invocationId) {
        this.rows[k] = null;
        this.live--;
      }
    }
    if (this.live === 0) return true;
    if (this.rows.length > 2 * this.live + 8) this.compact();
    return false;
  }

  forEachOpen(visit: (row: DeliverRow, seq: number) => void): void {
    for (let k = 0; k < this.rows.length; k++) if (this.rows[k] !== null) visit(snapshotOf(this.rows[k]!, this.claimerAt(k)), this.seqs[k]);
  }

  /** Positions of the open rows, ordered by seq: rows arrive in promotion order, and a source that completed late may have staged early. */
  private openInSeqOrder(): number[] {
    const order: number[] = [];
    let sorted = true;
    for (let k = 0; k < this.rows.length; k++) {
      if (this.rows[k] === null) continue;
      if (order.length > 0 && this.seqs[k] < this.seqs[order[order.length - 1]]) sorted = false;
      order.push(k);
    }
    if (!sorted) order.sort((a, b) => this.seqs[a] - this.seqs[b]);
    return order;
  }

  private inSeqOrder(): boolean {
    for (let k = 1; k < this.seqs.length; k++) if (this.seqs[k] < this.seqs[k - 1]) return false;
    return true;
  }

  private compact(): void {
    let to = 0;
    for (let k = 0; k < this.rows.length; k++) {
      if (this.rows[k] === null) continue;
      this.rows[to] = this.rows[k];
      this.seqs[to] = this.seqs[k];
      if (this.claimers !== null) this.claimers[to] = this.claimers[k];
      to++;
    }
    this.rows.length = this.seqs.length = to;
    if (this.claimers !== null) this.claimers.length = to;
  }
}

/** A held row as the ledger reads it now: held rows are PENDING snapshots, so only a claim copies. */
export const snapshotOf = (row: DeliverRow, claimer: string | null | undefined): DeliverRow =>
  claimer ? deliverRow(row, "CONSUMED_PENDING", claimer) : row;
