import type { DeliverStore } from "./deliver-store";
import { deliverRow, readsAs, type DeliverRow, type DeliverStatus, type NewDeliverRow } from "./records";

/**
 * A row in flight. Its latest snapshot stands in for its fields, so the row a promotion returns is
 * the row its consumer then reads: one snapshot per row where a copy per answer would make two, and
 * no more memory while it waits (the staged fields it replaces are dropped). A status change makes
 * the next answer a new snapshot; one handed out earlier is never mutated and keeps its status.
 */
class MailRow {
  status: DeliverStatus;
  consumedBy: string | null = null;
  private data: NewDeliverRow | DeliverRow;
  /** True while `data` is a snapshot of the current status. */
  private current = false;
  constructor(
    fields: NewDeliverRow,
    status: DeliverStatus,
    /** Insertion order across the store: the order every listing answers in. */
    readonly seq: number,
  ) {
    this.data = fields;
    this.status = status;
  }
  get fields(): NewDeliverRow {
    return this.data;
  }
  set(status: DeliverStatus, consumedBy: string | null): void {
    this.status = status;
    this.consumedBy = consumedBy;
    this.current = false;
  }
  snapshot(): DeliverRow {
    if (this.current) return this.data as DeliverRow;
    // The engine's staged rows already read as their PENDING snapshot: no copy at promotion.
    const snap = readsAs(this.data, this.status, this.consumedBy) ? this.data : deliverRow(this.data, this.status, this.consumedBy);
    this.data = snap;
    this.current = true;
    return snap;
  }
}

/** Consumable rows of one target node, in arrival order. Completed rows leave lazily. */
class Inbox {
  rows: MailRow[];
  live = 2;
  constructor(first: MailRow, second: MailRow) {
    this.rows = [first, second];
  }
}

/**
 * What waits for one target: most targets of a wide fan-out wait for exactly one row, which then
 * stands alone; an inbox is made when a second row arrives.
 */
type Waiting = MailRow | Inbox;

/**
 * One instance's targets. An emptied target keeps its key, as null, until the whole instance has
 * nothing waiting: a Map rehashes smaller as keys are deleted, which a 10,000-branch fan-out did
 * thousands of times per run while its branches consumed their rows one by one.
 */
class Targets {
  readonly waiting = new Map<string, Waiting | null>();
  /** Targets with something waiting. */
  live = 0;
}

/** The waiting rows, open ones only (a lone row is open: it leaves when completed). */
function openRowsOf(w: Waiting | null): MailRow[] {
  if (w === null) return [];
  if (w instanceof MailRow) return [w];
  return w.live === w.rows.length ? w.rows.slice() : w.rows.filter(isOpen);
}

/**
 * The Null coordinator's mailbox: delivers still flow through a ledger with the full status machine,
 * but a row is forgotten once its consumer completes, and nothing is indexed per row. Rows sit in one
 * array per target node (what `consumable` reads) or per staging source (what `promoteStaged` reads);
 * there is no id index, no open-row set, no history. A 10,000-branch fan-out then costs an array slot
 * per row instead of entries in four hash tables that grow, rehash and shrink on every run.
 *
 * Listings (recovery, tests) gather the open rows by scanning: fine for a store that keeps none for long.
 */
export class TransientDeliverStore implements DeliverStore {
  /** instanceId → targetNodeId → what waits there. */
  private readonly inboxes = new Map<string, Targets>();
  /** STAGED rows by source invocation (external rows staged without a source sit under null). */
  private readonly staged = new KeyedLists<string | null>();
  /** Claimed rows by consumer invocation, until promoteConsumed. */
  private readonly claims = new KeyedLists<string>();
  /**
   * The rows behind the last `consumable` answer: the claim that follows names exactly these. A lone
   * row is held as itself.
   */
  private offered: MailRow | readonly MailRow[] = NONE;
  private nextSeq = 0;

  stage(rows: readonly NewDeliverRow[]): void {
    for (let k = 0; k < rows.length; k++) {
      const fields = rows[k];
      this.staged.add(fields.sourceInvocationId, new MailRow(fields, "STAGED", this.nextSeq++));
    }
  }

  appendPending(fields: NewDeliverRow): DeliverRow {
    const row = new MailRow(fields, "PENDING", this.nextSeq++);
    this.enqueue(row);
    return row.snapshot();
  }

  /**
   * `stage` then `promoteStaged` of one invocation's outbox, for a caller nobody can observe in
   * between (the Null coordinator's completion). Answers with the promoted rows: `rows` itself when
   * each already reads as its PENDING snapshot (the engine's do), so no list is made; either way the
   * answer is the caller's to read, not to change.
   */
  publish(rows: readonly NewDeliverRow[]): DeliverRow[] {
    let copied: DeliverRow[] | null = null;
    for (let k = 0; k < rows.length; k++) {
      const row = new MailRow(rows[k], "PENDING", this.nextSeq++);
      this.enqueue(row);
      const snap = row.snapshot();
      if (snap !== rows[k] && copied === null) copied = rows.slice(0, k) as DeliverRow[];
      if (copied !== null) copied.push(snap);
    }
    return copied ?? (rows as DeliverRow[]);
  }

  promoteStaged(sourceInvocationId: string): DeliverRow[] {
    const rows = this.staged.take(sourceInvocationId);
    if (rows === undefined) return [];
    if (rows instanceof MailRow) return [this.promote(rows)];
    const out: DeliverRow[] = new Array(rows.length);
    for (let k = 0; k < rows.length; k++) out[k] = this.promote(rows[k]);
    return out;
  }

  private promote(row: MailRow): DeliverRow {
    row.set("PENDING", null);
    this.enqueue(row);
    return row.snapshot();
  }

  consumable(instanceId: string, targetNodeId: string): DeliverRow[] {
    const waiting = this.inboxes.get(instanceId)?.waiting.get(targetNodeId);
    if (!waiting) {
      this.offered = NONE;
      return [];
    }
    if (waiting instanceof MailRow) {
      // Most targets of a wide fan-out wait for one row: answered without a list of rows.
      this.offered = waiting;
      return [waiting.snapshot()];
    }
    const rows = openRowsOf(waiting);
    // Rows arrive in promotion order; a source that completed late may have staged early.
    if (!inSeqOrder(rows)) rows.sort(bySeq);
    this.offered = rows;
    const out: DeliverRow[] = new Array(rows.length);
    for (let k = 0; k < rows.length; k++) out[k] = rows[k].snapshot();
    return out;
  }

  /**
   * `consumable`, then `markConsumed` of every row it answered, for the Null coordinator's open: the
   * rows as offered (their status before this claim), now claimed by `invocationId`. No ids between.
   */
  claimConsumable(instanceId: string, targetNodeId: string, invocationId: string): DeliverRow[] {
    const inputs = this.consumable(instanceId, targetNodeId);
    const offered = this.offered;
    this.offered = NONE;
    if (offered instanceof MailRow) this.claim(offered, invocationId);
    else if (offered.length > 0) this.claimList(offered, invocationId);
    return inputs;
  }

  /**
   * Claims a list `consumable` made (a join's thousands of rows): every row in it is open, so the
   * list itself becomes the claim, not a copy grown row by row.
   */
  private claimList(rows: readonly MailRow[], invocationId: string): void {
    for (let k = 0; k < rows.length; k++) rows[k].set("CONSUMED_PENDING", invocationId);
    this.claims.addList(invocationId, rows);
  }

  markConsumed(deliverIds: readonly string[], invocationId: string): void {
    const offered = this.offered;
    this.offered = NONE;
    if (offered instanceof MailRow && deliverIds.length === 1 && offered.fields.deliverId === deliverIds[0]) {
      this.claim(offered, invocationId);
      return;
    }
    for (const row of this.locate(offered, deliverIds)) this.claim(row, invocationId);
  }

  private claim(row: MailRow, invocationId: string): void {
    if (row.status !== "PENDING" && row.status !== "CONSUMED_PENDING") return;
    row.set("CONSUMED_PENDING", invocationId);
    this.claims.add(invocationId, row);
  }

  promoteConsumed(invocationId: string): void {
    const rows = this.claims.take(invocationId);
    if (rows === undefined) return;
    if (rows instanceof MailRow) this.complete(rows, invocationId);
    else for (const row of rows) this.complete(row, invocationId);
  }

  private complete(row: MailRow, invocationId: string): void {
    if (row.status !== "CONSUMED_PENDING" || row.consumedBy !== invocationId) return;
    row.set("CONSUMED_COMPLETED", invocationId);
    this.leaveInbox(row);
  }

  discardStaged(sourceInvocationIds: readonly string[]): void {
    for (const src of sourceInvocationIds) this.staged.take(src);
  }

  listByStatus(instanceId: string, statuses: readonly DeliverStatus[]): DeliverRow[] {
    return this.openRows(instanceId)
      .filter((r) => statuses.includes(r.status))
      .map((r) => r.snapshot());
  }

  /** Completed rows are gone: the open rows are all there is. */
  listByInstance(instanceId: string): DeliverRow[] {
    return this.openRows(instanceId).map((r) => r.snapshot());
  }

  private enqueue(row: MailRow): void {
    const { instanceId, targetNodeId } = row.fields;
    let targets = this.inboxes.get(instanceId);
    if (!targets) this.inboxes.set(instanceId, (targets = new Targets()));
    const waiting = targets.waiting.get(targetNodeId);
    if (!waiting) {
      targets.waiting.set(targetNodeId, row);
      targets.live++;
    } else if (waiting instanceof MailRow) targets.waiting.set(targetNodeId, new Inbox(waiting, row));
    else {
      waiting.rows.push(row);
      waiting.live++;
    }
  }

  private leaveInbox(row: MailRow): void {
    const { instanceId, targetNodeId } = row.fields;
    const targets = this.inboxes.get(instanceId);
    const waiting = targets?.waiting.get(targetNodeId);
    if (!targets || !waiting) return;
    if (waiting instanceof MailRow) {
      if (waiting === row) this.dropTarget(targets, instanceId, targetNodeId);
      return;
    }
    const inbox = waiting;
    // Drop emptied inboxes: a 10,000-branch fan-out would otherwise keep 10,000 of them per instance.
    if (--inbox.live === 0) this.dropTarget(targets, instanceId, targetNodeId);
    else if (inbox.rows.length > 2 * inbox.live + 8) inbox.rows = inbox.rows.filter(isOpen);
  }

  private dropTarget(targets: Targets, instanceId: string, targetNodeId: string): void {
    targets.waiting.set(targetNodeId, null);
    if (--targets.live === 0) this.inboxes.delete(instanceId);
  }

  /** The rows `deliverIds` name: the last offered ones when they match, else found by scanning. */
  private locate(offered: MailRow | readonly MailRow[], deliverIds: readonly string[]): readonly MailRow[] {
    if (!(offered instanceof MailRow) && sameIds(offered, deliverIds)) return offered;
    const wanted = new Set(deliverIds);
    const found: MailRow[] = [];
    for (const targets of this.inboxes.values()) {
      for (const waiting of targets.waiting.values()) for (const row of openRowsOf(waiting)) if (wanted.has(row.fields.deliverId)) found.push(row);
    }
    return found;
  }

  private openRows(instanceId: string): MailRow[] {
    const out: MailRow[] = [];
    for (const waiting of this.inboxes.get(instanceId)?.waiting.values() ?? []) out.push(...openRowsOf(waiting));
    for (const rows of this.staged.lists()) for (const row of rows) if (row.fields.instanceId === instanceId) out.push(row);
    return out.sort(bySeq);
  }
}

/**
 * Lists of rows by key, for keys that come and go once per node execution (a source's staged rows,
 * a consumer's claims). V8 reallocates a small Map's table on nearly every delete, so the latest key
 * lives in a slot in front of the Map: the synchronous lifecycle adds and takes one key at a time.
 */
class KeyedLists<K> {
  private slotKey: K | undefined;
  /** The slot's rows: most sources stage one row and most consumers claim one, held without a list. */
  private slotRow: MailRow | null = null;
  private slotMore: MailRow[] | null = null;
  private readonly more = new Map<K, MailRow[]>();

  add(key: K, row: MailRow): void {
    if (this.slotRow !== null && this.slotKey === key) (this.slotMore ??= []).push(row);
    else if (this.slotRow === null && !this.more.has(key)) {
      this.slotKey = key;
      this.slotRow = row;
    } else {
      const list = this.more.get(key);
      if (list) list.push(row);
      else this.more.set(key, [row]);
    }
  }

  /** Adds several rows at once; a key with none yet takes `rows` itself as its list. */
  addList(key: K, rows: readonly MailRow[]): void {
    if ((this.slotRow !== null && this.slotKey === key) || this.more.has(key)) {
      for (let k = 0; k < rows.length; k++) this.add(key, rows[k]);
    } else this.more.set(key, rows as MailRow[]);
  }

  /** Removes and returns the key's rows: a lone row as itself, several as a list. */
  take(key: K): MailRow | readonly MailRow[] | undefined {
    if (this.slotRow !== null && this.slotKey === key) {
      const rows = this.slotMore === null ? this.slotRow : this.slotRows();
      this.slotRow = null;
      this.slotMore = null;
      this.slotKey = undefined;
      return rows;
    }
    const rows = this.more.get(key);
    if (rows) this.more.delete(key);
    return rows;
  }

  *lists(): Iterable<readonly MailRow[]> {
    if (this.slotRow !== null) yield [this.slotRow, ...(this.slotMore ?? [])];
    yield* this.more.values();
  }

  /** The slot's rows as one list; only for `take`, which empties the slot. */
  private slotRows(): MailRow[] {
    const more = this.slotMore!;
    more.unshift(this.slotRow!);
    return more;
  }
}

const NONE: readonly MailRow[] = Object.freeze([]);
const isOpen = (row: MailRow): boolean => row.status !== "CONSUMED_COMPLETED";
const bySeq = (a: MailRow, b: MailRow): number => a.seq - b.seq;

function sameIds(rows: readonly MailRow[], deliverIds: readonly string[]): boolean {
  if (rows.length !== deliverIds.length) return false;
  for (let k = 0; k < rows.length; k++) if (rows[k].fields.deliverId !== deliverIds[k]) return false;
  return true;
}

function inSeqOrder(rows: readonly MailRow[]): boolean {
  for (let k = 1; k < rows.length; k++) if (rows[k].seq < rows[k - 1].seq) return false;
  return true;
}
